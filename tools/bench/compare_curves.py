#!/usr/bin/python3
"""Held-out MLM curves of two run_experiment output directories, side by side.

  python3 tools/bench/compare_curves.py /tmp/curves_fp32 /tmp/curves_bf16

Each directory is what `run_experiment --output_dir=DIR` wrote for the same
experiment (experiments/bf16_curves.mini.textproto, run once per precision):
its pre-trainings, one per variant (a seed each), with held-out evaluations
in metrics.jsonl. For every evaluated step this prints, as a Markdown table,
each side's held-out MLM loss over the seeds (mean and sample standard
deviation, n seeds) and the difference of the means with Welch's standard
error; then, at the last step, each seed's own difference (the two runs of a
seed start from the same weights and see the same data, so they pair up).
The seeds are the noise: the sides match within noise when the means differ
by at most two standard errors and no seed's difference is larger than three
times the first side's spread between seeds. The second test is the one
that matters with few seeds: a run stuck at the unigram plateau in one
precision and not the other widens the standard error enough to hide it
from the first.
"""

import argparse
import glob
import json
import math
import os
import sys


def fail(message):
    print(f"compare_curves.py: {message}", file=sys.stderr)
    sys.exit(1)


def read_curves(output_dir):
    """{variant: {step: mlm_loss}} from output_dir's pre-training runs."""
    records = sorted(glob.glob(os.path.join(output_dir, "pretrain", "*", "run.json")))
    if not records:
        fail(f"{output_dir}: no pretrain/*/run.json (not a run_experiment output directory, "
             "or its pre-trainings have not finished)")
    curves = {}
    for record in records:
        run_dir = os.path.basename(os.path.dirname(record))
        variant, _, short_id = run_dir.rpartition("-")
        matches = glob.glob(os.path.join(output_dir, "cache", "pretrain", short_id + "*",
                                         "metrics.jsonl"))
        if len(matches) != 1:
            fail(f"{record}: expected one cache/pretrain/{short_id}*/metrics.jsonl, "
                 f"found {len(matches)}")
        curve = {}
        with open(matches[0]) as lines:
            for number, line in enumerate(lines, 1):
                try:
                    entry = json.loads(line)
                except json.JSONDecodeError as error:
                    fail(f"{matches[0]}:{number}: not JSON ({error})")
                if entry.get("type") == "eval" and "mlm_loss" in entry:
                    curve[entry["step"]] = entry["mlm_loss"]
        if not curve:
            fail(f"{matches[0]}: no held-out evaluation with mlm_loss")
        curves[variant] = curve
    return curves


def mean_and_sd(values):
    mean = sum(values) / len(values)
    if len(values) < 2:
        return mean, float("nan")
    return mean, math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("first", help="output directory of the first run (e.g. FP32)")
    parser.add_argument("second", help="output directory of the second run (e.g. BF16)")
    args = parser.parse_args()
    first, second = read_curves(args.first), read_curves(args.second)
    if sorted(first) != sorted(second):
        fail(f"the directories ran other variants: {sorted(first)} vs {sorted(second)}")
    steps = sorted(set.intersection(*(set(c) for c in list(first.values()) +
                                      list(second.values()))))
    if not steps:
        fail("no evaluated step is common to every run")
    name_a, name_b = os.path.basename(args.first.rstrip("/")), os.path.basename(
        args.second.rstrip("/"))
    n = len(first)
    print(f"Held-out MLM loss (nats), mean ± sd over {n} seeds ({', '.join(sorted(first))})\n")
    print(f"| step | {name_a} | {name_b} | difference | Welch SE |")
    print("|---|---|---|---|---|")
    last = None
    for step in steps:
        mean_a, sd_a = mean_and_sd([first[v][step] for v in sorted(first)])
        mean_b, sd_b = mean_and_sd([second[v][step] for v in sorted(second)])
        se = math.sqrt((sd_a ** 2 + sd_b ** 2) / n)
        print(f"| {step} | {mean_a:.4f} ± {sd_a:.4f} | {mean_b:.4f} ± {sd_b:.4f} | "
              f"{mean_b - mean_a:+.4f} | {se:.4f} |")
        last = (step, mean_b - mean_a, se)
    step, difference, se = last
    _, spread = mean_and_sd([first[v][step] for v in sorted(first)])
    print(f"\nAt step {step}, seed by seed ({name_b} - {name_a}; outside noise: more than "
          f"3 x {name_a}'s spread between seeds, 3 x {spread:.4f} = {3 * spread:.4f}):\n")
    print(f"| seed | {name_a} | {name_b} | difference |")
    print("|---|---|---|---|")
    outside = []
    for variant in sorted(first):
        paired = second[variant][step] - first[variant][step]
        flag = ""
        if abs(paired) > 3 * spread:
            outside.append(variant)
            flag = " (outside noise)"
        print(f"| {variant} | {first[variant][step]:.4f} | {second[variant][step]:.4f} | "
              f"{paired:+.4f}{flag} |")
    means_agree = abs(difference) <= 2 * se
    verdict = "within noise" if means_agree and not outside else "NOT within noise"
    print(f"\nMeans: {name_b} - {name_a} = {difference:+.4f} nats, 2 SE = {2 * se:.4f} "
          f"({'within' if means_agree else 'outside'}); seeds outside noise: "
          f"{len(outside)} of {n}{' (' + ', '.join(outside) + ')' if outside else ''}. "
          f"Verdict: {verdict}.")

if __name__ == "__main__":
    main()
