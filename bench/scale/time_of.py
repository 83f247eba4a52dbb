"""Prints "WALL CPU" seconds of one command and its children (CPU = user + system), output
discarded. Usage: python3 bench/scale/time_of.py COMMAND [ARG...]"""
import os
import subprocess
import sys
import time

t = time.monotonic()
c0 = os.times()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
c1 = os.times()
w = time.monotonic() - t
print(f"{w:.3f} {(c1.children_user - c0.children_user) + (c1.children_system - c0.children_system):.3f}")
