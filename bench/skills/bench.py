"""Times the three validators on the same SKILL.md files and prints a Markdown table."""
import argparse
import os
import statistics
import subprocess
import time

ap = argparse.ArgumentParser()
for a in ["--alisio", "--venv", "--driver", "--corpus", "--generated", "--scratch"]:
    ap.add_argument(a, required=True)
ap.add_argument("--runs", type=int, default=5)
args = ap.parse_args()


def skill_files(root):
    out = []
    for d, _, files in os.walk(root):
        if "SKILL.md" in files:
            out.append(os.path.join(d, "SKILL.md"))
    return sorted(out)


env = dict(os.environ, HOME=args.scratch, ALISIO_CONFIG_HOME=os.path.join(args.scratch, "cfg"), NO_COLOR="1")


def timed(cmd, stdin=None):
    best = []
    for _ in range(args.runs):
        t = time.perf_counter()
        subprocess.run(cmd, input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=args.scratch)
        best.append(time.perf_counter() - t)
    return statistics.median(best)


rows = []
for label, root in [("corpus", args.corpus), ("generated 5,000", args.generated)]:
    if not os.path.isdir(root):
        print(f"skipped {label}: {root} is absent")
        continue
    files = skill_files(root)
    listing = ("\n".join(files) + "\n").encode()
    ours = timed([args.alisio, "skills", "validate", "--profile", "spec", "--json", *files])
    ref = timed([os.path.join(args.venv, "bin/python"), args.driver], stdin=listing)
    agnix = timed([os.path.join(args.venv, "bin/agnix"), *files])
    rows.append((label, len(files), ours, agnix, ref))

print(f"| files | n | alisio-ls | agnix | skills-ref | agnix / alisio-ls | skills-ref / alisio-ls |")
print("|---|---|---|---|---|---|---|")
for label, n, ours, agnix, ref in rows:
    print(f"| {label} | {n} | {ours*1000:.1f} ms | {agnix*1000:.1f} ms | {ref*1000:.1f} ms | {agnix/ours:.1f}x | {ref/ours:.1f}x |")
print(f"\nmedian of {args.runs} runs each; skills-ref runs as one Python process over all files (its library `validate`, as its CLI calls it), which spares it one interpreter start per skill.")
