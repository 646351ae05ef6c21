"""Plugins that ship inside the core distribution (see ``plugins.DEFAULT_PLUGINS``)."""
