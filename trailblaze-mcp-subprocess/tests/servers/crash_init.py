"""Exits while Trailblaze waits for the answer to initialize."""
import sys

sys.stdin.readline()
print("crash_init: cannot load my configuration", file=sys.stderr, flush=True)
print("crash_init: giving up", file=sys.stderr, flush=True)
sys.exit(7)
