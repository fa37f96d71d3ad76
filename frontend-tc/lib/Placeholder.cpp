// Replaced by the TC frontend sources.
