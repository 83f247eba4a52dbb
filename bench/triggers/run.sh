#!/bin/sh
# The offline trigger lab at scale (issue 22): `alisio-ls skills test` over 1,000 generated skills
# whose 100 eval files hold 1,000 prompts (10 each), routed for every simulated host (alisio,
# claude-code, codex, gemini, copilot: 5,000 routings). Prints the median wall time of 5 runs.
# Usage: bench/triggers/run.sh [BIN]   (default: a release build of this tree)
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
if [ $# -gt 0 ]; then bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1"); else
  cargo build --release --quiet --manifest-path "$here/Cargo.toml" -p alisio-ls
  bin=$here/target/release/alisio-ls
fi
work=$here/target/bench-triggers
rm -rf "$work"; mkdir -p "$work/ws/.git" "$work/home/.claude"
python3 - "$work/home/.agents/skills" <<'PY'
import json, os, random, sys
root = sys.argv[1]
r = random.Random(22)
words = [w.strip() for w in """parse render deploy review audit invoice ledger chart schema migrate lint format bundle
test fixture cache token queue stream image audio video sheet slide report email calendar
contract budget payroll kubernetes docker terraform python rust typescript react vue sql graph
pdf docx spreadsheet csv json yaml xml log metric trace alert incident ticket issue branch""".split()]
names = []
for i in range(1000):
    a, b = r.choice(words), r.choice(words)
    name = f"{a}-{b}-{i}"
    names.append((name, a, b))
    d = os.path.join(root, name)
    os.makedirs(d)
    desc = f"Use when working on {a} and {b}: " + " ".join(r.choice(words) for _ in range(r.randint(8, 40)))
    open(os.path.join(d, "SKILL.md"), "w").write(f"---\nname: {name}\ndescription: {json.dumps(desc)}\n---\nBody\n")
for name, a, b in names[:100]:
    prompts = [f"please {a} the {b} " + " ".join(r.choice(words) for _ in range(r.randint(3, 12))) for _ in range(10)]
    os.makedirs(os.path.join(root, name, "evals"))
    json.dump({"trigger": prompts[:7], "noTrigger": prompts[7:]}, open(os.path.join(root, name, "evals/triggers.json"), "w"))
PY
ln -s "$work/home/.agents/skills" "$work/home/.claude/skills"
cd "$work/ws"
for i in 1 2 3 4 5; do
  s=$(date +%s%N)
  HOME="$work/home" "$bin" skills test --json > "$work/out.json" || true
  e=$(date +%s%N)
  echo $(( (e - s) / 1000000 ))
done | sort -n | sed -n 3p | { read ms; hosts=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))))" "$work/out.json"); echo "skills test: 1000 skills, 1000 prompts x $hosts hosts: median ${ms} ms"; }
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print('prompts per host:', sum(s['truePositives']+s['falseNegatives']+s['falsePositives']+s['trueNegatives'] for s in j[0]['skills']) )" "$work/out.json"
