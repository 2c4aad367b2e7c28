//! Patch metadata (strategy, merge key, list type) read from OpenAPI documents.
