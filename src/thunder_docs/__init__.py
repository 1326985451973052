"""Build code of the Thunder Internals site: run snippet sections, embed their output."""
