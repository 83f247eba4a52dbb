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
ap.add_argument("--mirror", help="a mirror-shaped tree (bench/skills/mirror.py), timed as a third set")
ap.add_argument("--no-skills-ref", action="store_true", help="time alisio-ls and agnix only")
args = ap.parse_args()


def skill_files(root):
    out = []
    for d, _, files in os.walk(root):
        if "SKILL.md" in files:
            out.append(os.path.join(d, "SKILL.md"))
    return sorted(out)


env = dict(os.environ, HOME=args.scratch, ALISIO_CONFIG_HOME=os.path.join(args.scratch, "cfg"), NO_COLOR="1")


def once(cmd, stdin=None):
    """Wall and CPU (user + sys of the child) seconds of one run."""
    c0 = os.times()
    t = time.perf_counter()
    subprocess.run(cmd, input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=args.scratch)
    w = time.perf_counter() - t
    c1 = os.times()
    return w, (c1.children_user - c0.children_user) + (c1.children_system - c0.children_system)


def timed(cmds, stdin=None):
    """Median over the runs of (wall, cpu), each run summing the commands `cmds` in sequence."""
    walls, cpus = [], []
    for _ in range(args.runs):
        w = c = 0.0
        for cmd in cmds:
            a, b = once(cmd, stdin)
            w, c = w + a, c + b
        walls.append(w)
        cpus.append(c)
    return statistics.median(walls), statistics.median(cpus)


def cli_per_skill(files):
    """skills-ref's own command, `agentskills validate DIR`, once per skill (one run)."""
    t = time.perf_counter()
    for f in files:
        subprocess.run([os.path.join(args.venv, "bin/agentskills"), "validate", os.path.dirname(f)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=args.scratch)
    return time.perf_counter() - t


rows = []
sets = [("corpus", args.corpus), ("generated 5,000", args.generated)]
if args.mirror:
    sets.append(("mirror-shaped 1,500", args.mirror))
for label, root in sets:
    if not os.path.isdir(root):
        print(f"skipped {label}: {root} is absent")
        continue
    files = skill_files(root)
    listing = ("\n".join(files) + "\n").encode()
    # `skills validate PATH...` walks its PATHs as one discovery with the 2,000-directory budget
    # of spec/skills.md §5.2: past 1,000 files, one process per 1,000 (times summed), so that every
    # file is validated, as agnix and skills-ref do.
    ours = timed([[args.alisio, "skills", "validate", "--profile", "spec", "--json", *files[i:i + 1000]]
                  for i in range(0, len(files), 1000)])
    ref = (0.0, 0.0) if args.no_skills_ref else timed([[os.path.join(args.venv, "bin/python"), args.driver]], stdin=listing)
    agnix = timed([[os.path.join(args.venv, "bin/agnix"), *files]])
    # The per-skill command costs about half a second a skill: measured on the corpus only.
    ref_cli = cli_per_skill(files) if len(files) <= 500 and not args.no_skills_ref else None
    rows.append((label, len(files), ours, agnix, ref, ref_cli))

print("Wall time (CPU time, user + sys) of each tool on the same files; ratios: wall (CPU).\n")
print("| files | n | alisio-ls | agnix | skills-ref (library, 1 process) | skills-ref CLI (1 process a skill) | agnix / alisio-ls | skills-ref lib / alisio-ls | skills-ref CLI / alisio-ls |")
print("|---|---|---|---|---|---|---|---|---|")


def ms(t):
    return f"{t[0]*1000:.1f} ms ({t[1]*1000:.0f} ms)" if t[0] else "not run"


def ratio(a, b):
    return f"{a[0]/b[0]:.1f}x ({a[1]/b[1]:.1f}x)" if a[0] and b[0] and b[1] else "-"


for label, n, ours, agnix, ref, ref_cli in rows:
    cli = f"{ref_cli*1000:.0f} ms" if ref_cli else "not run"
    cli_ratio = f"{ref_cli/ours[0]:.0f}x" if ref_cli else "-"
    print(f"| {label} | {n} | {ms(ours)} | {ms(agnix)} | {ms(ref)} | {cli} | {ratio(agnix, ours)} | {ratio(ref, ours)} | {cli_ratio} |")
print(f"\nalisio-ls, agnix and the skills-ref library: median of {args.runs} runs; the skills-ref CLI: one run (wall).")
print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
