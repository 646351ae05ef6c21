"""The example web shop plugin: starts the shop server for the sessions that test it."""
