//! Printers for `-o yaml|json|name|wide` and tables.
