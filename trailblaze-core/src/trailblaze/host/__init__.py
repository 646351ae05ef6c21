"""The plugin host's parts: how plugins are loaded (``loader``) and how a hook call is attributed to the
plugins that answer it (``dispatch``). ``trailblaze.plugins`` is the public facade (``PluginHost``) that
holds them; nothing here is public API. What a plugin *is* (``PluginInfo``) and what it may ask of the
others (``PluginQueries``) is ``trailblaze.plugin_info``, below ``hookspecs``, which names it: the whole
of this package stands above the contract it loads."""
