//! The merge engine: strategic merge patch, JSON merge patch and JSON patch. Pure: no I/O.
