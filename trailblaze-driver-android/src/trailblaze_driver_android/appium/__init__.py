"""The Appium foundation both mobile drivers use: page-source hierarchy, refs, snapshot text,
``nodeSelector`` matching, capabilities, managed server, device and port claims, the Appium connection
and the shared mobile tools. Importing it never imports Appium or Selenium.
"""

from __future__ import annotations
