"""The Textual UI. The only package allowed to import textual."""
