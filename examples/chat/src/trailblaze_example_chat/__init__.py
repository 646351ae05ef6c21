"""The example chat plugin: one chat server shared by every session (every actor) that tests it."""
