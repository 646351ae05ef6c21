"""Writes something that is not JSON-RPC to stdout instead of answering initialize."""
import sys
import time

sys.stdin.readline()
print("garbage: about to print a banner on stdout (a bug)", file=sys.stderr, flush=True)
print("Welcome to my tool server v1!", flush=True)
time.sleep(30)
