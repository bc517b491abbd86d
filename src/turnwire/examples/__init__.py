"""Bundled example files (package data), e.g. ``turnwire convert --example agenta-conversation``."""
