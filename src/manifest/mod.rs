//! Reading `-f` inputs: files, directories, stdin; multi-document YAML and JSON.
