"""The plugin host's parts: what a plugin is (``info``), how plugins are loaded (``loader``) and how a
hook call is attributed to the plugins that answer it (``dispatch``). ``trailblaze.plugins`` is the
public facade (``PluginHost``) that holds them; nothing here is public API.

This ``__init__`` imports nothing, so ``hookspecs`` can name ``host.info.PluginQueries`` without reaching
the loader that imports ``hookspecs``."""
