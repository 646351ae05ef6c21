"""Trailblaze web driver: Chromium through Playwright and the ``web_*`` tools."""
