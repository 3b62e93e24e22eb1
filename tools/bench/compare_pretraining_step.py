#!/usr/bin/env python3
"""Runs //model:pretraining_step_benchmark (OpenBLAS FP32, oneDNN FP32, oneDNN
BF16) and tools/reference/bench_pytorch.py (float32, bfloat16) on the same
configurations, alternating between them, and prints Markdown tables. Called
by compare_pretraining_step.sh (which builds the C++ benchmarks first); see
tools/bench/README.md. With --step classification it times the fine-tuning
classifier's step instead: //model:finetuning_step_benchmark against
bench_pytorch.py --step classification (sequence length 128, dropout 0.1).

Every measurement runs in a fresh process, so its peak RSS (ru_maxrss of
that child, from os.wait4) is the configuration's own. Each configuration is
measured --rounds times, every mode once per round, the modes in turn (each
round starts one mode later than the last), and the tables keep each mode's
fastest round: on a shared machine other processes only ever slow a run down.
Before each measurement the script waits (up to --idle_timeout) for the CPUs
to be --idle_percent idle, and after it compares the machine's busy CPU time
(/proc/stat) with the child's own: when other processes took more than
--max_others of the CPUs meanwhile, it measures again (up to --max_attempts).
The second table's last column is the largest such share among the rounds it
kept.
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import time

sys.dont_write_bytecode = True

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
PYTORCH_BENCH = os.path.join(ROOT, "tools", "reference", "bench_pytorch.py")
SIZES = ["L2_H128_A2", "L4_H256_A4", "L4_H512_A8", "L8_H512_A8", "base"]
NO_BF16 = "n/a (no bf16 matmul on this CPU)"

# Mode name -> (column title, C++ benchmark name head or None, PyTorch
# --dtype or None, peak benchmark its GFLOP/s is read against or None).
MODES = {
    "cpp_openblas": ("C++ FP32 OpenBLAS", "BM_PretrainingStep", None,
                     "BM_SgemmPeak"),
    "cpp_onednn": ("C++ FP32 oneDNN", "BM_PretrainingStepOneDnn", None,
                   "BM_OneDnnF32MatmulPeak"),
    "cpp_bf16": ("C++ BF16", "BM_PretrainingStepOneDnnBf16", None,
                 "BM_OneDnnBf16MatmulPeak"),
    "torch_fp32": ("PyTorch FP32", None, "float32", None),
    "torch_bf16": ("PyTorch BF16", None, "bfloat16", None),
}
BF16_MODES = ("cpp_bf16", "torch_bf16")
TORCH_MODES = ("torch_fp32", "torch_bf16")


def cpu_idle_percent(window):
    """Percent of all CPUs' time idle over the next `window` seconds."""
    def read():
        with open("/proc/stat") as stat:
            fields = [int(v) for v in stat.readline().split()[1:]]
        return fields[3] + fields[4], sum(fields)  # idle + iowait, total
    idle0, total0 = read()
    time.sleep(window)
    idle1, total1 = read()
    return 100.0 * (idle1 - idle0) / max(1, total1 - total0)


def wait_for_idle(percent, timeout):
    """Waits (up to timeout s) until the machine is `percent` idle, so that
    no other process shares the cores during a measurement. Returns the
    seconds waited, or None if it never got that idle."""
    if percent <= 0:
        return 0.0
    start = time.time()
    while time.time() - start < timeout:
        if cpu_idle_percent(2.0) >= percent:
            return time.time() - start
    return None


def busy_cpu_seconds():
    """CPU seconds all processes have used since boot (/proc/stat)."""
    with open("/proc/stat") as stat:
        fields = [int(v) for v in stat.readline().split()[1:]]
    busy = sum(fields[:8]) - fields[3] - fields[4]  # minus idle, iowait
    return busy / os.sysconf("SC_CLK_TCK")


def run_child(command):
    """Runs command; returns (stdout text, peak RSS in MiB, share of the
    machine's CPU time that other processes used while it ran)."""
    busy_before, start = busy_cpu_seconds(), time.time()
    child = subprocess.Popen(command, stdout=subprocess.PIPE)
    output = child.stdout.read().decode()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.time() - start
    others = (busy_cpu_seconds() - busy_before -
              (usage.ru_utime + usage.ru_stime))
    if status != 0:
        sys.exit("compare_pretraining_step: %s failed (status %d)" %
                 (" ".join(command), status))
    return (output, usage.ru_maxrss / 1024.0,  # ru_maxrss is KiB on Linux
            max(0.0, others) / (wall * os.cpu_count()))


def cpp_head(head, step):
    """A mode's C++ benchmark head for `step`: model/finetuning_step_benchmark.cc
    names its engines as the pre-training benchmark does, FinetuningStep for
    PretrainingStep."""
    if step == "classification":
        return head.replace("PretrainingStep", "FinetuningStep")
    return head


def cpp_name(head, size, batch, seq_len, dropout, step="pretraining"):
    """The C++ benchmark's name (model/pretraining_step_benchmark.cc:
    sequence length 128 has no /seq: part; model/finetuning_step_benchmark.cc
    has neither part)."""
    if step == "classification":
        return "%s/%s/batch:%d" % (cpp_head(head, step), size, batch)
    seq = "" if seq_len == 128 else "/seq:%d" % seq_len
    return "%s/%s/batch:%d%s/dropout:%d" % (head, size, batch, seq,
                                            dropout > 0)


def run_cpp(binary, head, size, batch, seq_len, dropout, min_time, step):
    name = cpp_name(head, size, batch, seq_len, dropout, step)
    output, rss, others = run_child([
        binary, "--benchmark_filter=^%s/" % name,
        "--benchmark_format=json", "--benchmark_min_time=%g" % min_time])
    runs = [b for b in json.loads(output)["benchmarks"]
            if b.get("run_type", "iteration") == "iteration"]
    if len(runs) != 1:
        sys.exit("compare_pretraining_step: no unique C++ result for " + name)
    run = runs[0]
    return {"tokens_per_second": run["tokens/s"],
            "gflops_per_second": run["GFLOP/s"],
            "seconds_per_step": run["real_time"] / 1e3,  # Unit(kMillisecond)
            "loss": run["loss"], "peak_rss_mib": rss, "others": others}


def run_pytorch(dtype, size, batch, seq_len, dropout, threads, min_time,
                omp_wait_policy, step):
    output, rss, others = run_child([
        "/usr/bin/python3", PYTORCH_BENCH, "--child", "--sizes", size,
        "--batches", str(batch), "--seq_len", str(seq_len), "--step", step,
        "--dtype", dtype,
        "--dropout", str(dropout), "--threads", str(threads), "--warmup", "1",
        "--min_time", str(min_time), "--min_iterations", "2",
        "--omp_wait_policy", omp_wait_policy])
    row = json.loads(output.strip().splitlines()[-1])
    row["peak_rss_mib"] = rss
    row["others"] = others
    return row


def matmul_peak(binary, benchmark, rounds, min_time):
    """{shape m x n x k: best GFLOP/s} of `benchmark` (BM_SgemmPeak,
    BM_OneDnnF32MatmulPeak or BM_OneDnnBf16MatmulPeak) over `rounds` runs,
    each in its own process."""
    best = {}
    for _ in range(rounds):
        output, _, _ = run_child([
            binary, "--benchmark_filter=^%s/" % benchmark,
            "--benchmark_format=json", "--benchmark_min_time=%g" % min_time])
        for run in json.loads(output)["benchmarks"]:
            if run.get("run_type", "iteration") != "iteration":
                continue
            shape = run["name"].split("/")[1:4]  # m:.., n:.., k:..
            key = "x".join(part.split(":")[1] for part in shape)
            best[key] = max(best.get(key, 0.0), run["GFLOP/s"])
    if not best:
        sys.exit("compare_pretraining_step: no %s results" % benchmark)
    return best


def best_of(rows):
    """The fastest measurement; its `others` says how disturbed it was."""
    best = dict(max(rows, key=lambda r: r["tokens_per_second"]))
    best["peak_rss_mib"] = max(r["peak_rss_mib"] for r in rows)
    return best


def configurations(args):
    """(size, batch, seq_len) in the order they run: --sizes x --batches at
    128, then the --seq512 pairs at 512; --skip leaves some out."""
    configs = [(size, batch, 128) for size in args.sizes
               for batch in args.batches]
    for pair in args.seq512:
        size, _, batch = pair.partition(":")
        if size not in SIZES or not batch.isdigit():
            sys.exit("--seq512: %r is not size:batch (e.g. base:8)" % pair)
        configs.append((size, int(batch), 512))
    skip = set(args.skip)
    return [(size, batch, seq) for size, batch, seq in configs
            if "%s:%d:%d" % (size, batch, seq) not in skip and
            (seq != 128 or "%s:%d" % (size, batch) not in skip)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cpp_benchmark", required=True,
                        help="path of the built pretraining_step_benchmark "
                        "(its matmul peaks are read in both --step kinds)")
    parser.add_argument("--cpp_finetuning_benchmark",
                        help="path of the built finetuning_step_benchmark "
                        "(needed by --step classification)")
    parser.add_argument("--step", default="pretraining",
                        choices=["pretraining", "classification"],
                        help="the step timed: BertForPreTraining's, or the "
                        "fine-tuning classifier's (3 labels on the pooled "
                        "[CLS]; sequence length 128, dropout 0.1)")
    parser.add_argument("--modes", nargs="+", default=list(MODES),
                        choices=list(MODES),
                        help="what to run (default: all five); the BF16 "
                        "modes drop out on a CPU without a bf16 matmul")
    parser.add_argument("--sizes", nargs="+", default=SIZES, choices=SIZES)
    parser.add_argument("--batches", nargs="+", type=int, default=[8, 32])
    parser.add_argument("--seq512", nargs="*", default=None,
                        help="size:batch pairs also run at sequence length "
                        "512 (the C++ benchmark has base:8, the default for "
                        "--step pretraining); none: only 128")
    parser.add_argument("--skip", nargs="*", default=[],
                        help="size:batch (at 128) or size:batch:seq to leave "
                        "out, e.g. base:32 base:8:512")
    parser.add_argument("--dropout", type=float, default=0.1,
                        help="0.1 (BERT's, both sides) or 0 (none)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--omp_wait_policy", default="PASSIVE",
                        choices=["PASSIVE", "ACTIVE", "default"],
                        help="PyTorch's OMP_WAIT_POLICY (bench_pytorch.py "
                        "explains the PASSIVE default)")
    parser.add_argument("--min_time", type=float, default=2.0,
                        help="seconds each measurement runs at least")
    parser.add_argument("--peak_min_time", type=float, default=1.0,
                        help="seconds each matmul peak shape runs at least")
    parser.add_argument("--max_others", type=float, default=0.05,
                        help="a measurement during which other processes "
                        "used more than this share of the CPUs is repeated")
    parser.add_argument("--max_attempts", type=int, default=4,
                        help="measurements per round at most (see "
                        "--max_others)")
    parser.add_argument("--idle_percent", type=float, default=90,
                        help="before each measurement wait until the CPUs "
                        "are this idle (0: do not wait)")
    parser.add_argument("--idle_timeout", type=float, default=600,
                        help="seconds to wait for that before measuring "
                        "anyway (the summary then says so)")
    args = parser.parse_args()
    if args.dropout not in (0.0, 0.1):
        sys.exit("--dropout: the C++ benchmark has 0.1 (dropout:1) or 0")
    if args.step == "classification":
        if args.seq512:
            sys.exit("--seq512: the fine-tuning benchmark runs at 128 only")
        if args.dropout != 0.1:
            sys.exit("--dropout: the fine-tuning benchmark has 0.1 only")
        if not args.cpp_finetuning_benchmark:
            sys.exit("--step classification needs "
                     "--cpp_finetuning_benchmark (compare_pretraining_step.sh "
                     "passes it)")
    if args.seq512 is None:
        args.seq512 = ["base:8"] if args.step == "pretraining" else []
    if any(m in TORCH_MODES for m in args.modes) and subprocess.run(
            ["/usr/bin/python3", "-c", "import torch"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode:
        sys.exit("compare_pretraining_step: the torch_* modes need PyTorch, "
                 "which /usr/bin/python3 cannot import: install Debian's "
                 "python3-torch (apt-get install python3-torch; tools/setup.sh "
                 "leaves it out, it is only for these comparisons and the "
                 "reference fixtures), or run the C++ modes alone "
                 "(--modes cpp_openblas cpp_onednn cpp_bf16)")
    threads = 2
    configs = configurations(args)
    step_binary = (args.cpp_finetuning_benchmark
                   if args.step == "classification" else args.cpp_benchmark)

    listed = subprocess.run([step_binary, "--benchmark_list_tests"],
                            stdout=subprocess.PIPE, check=True,
                            universal_newlines=True).stdout.split()
    listed_heads = {name.split("/")[0] for name in listed}
    has_bf16 = cpp_head(MODES["cpp_bf16"][1], args.step) in listed_heads
    modes = [m for m in MODES if m in args.modes and
             (has_bf16 or m not in BF16_MODES)]
    if not has_bf16:
        print("No BM_PretrainingStepOneDnnBf16 benchmarks: this CPU has no "
              "bf16 matmul, the BF16 columns are n/a.", file=sys.stderr)
    cpp_modes = [m for m in modes if MODES[m][1]]
    for size, batch, seq_len in configs:
        for mode in cpp_modes:
            name = cpp_name(MODES[mode][1], size, batch, seq_len, args.dropout,
                            args.step)
            if not any(n == name or n.startswith(name + "/") for n in listed):
                sys.exit("compare_pretraining_step: the C++ benchmark has no "
                         "%s (see --seq512, --skip)" % name)

    start = time.time()
    print("Machine: %s, %d CPUs, load average at start %s" % (
        platform.processor() or platform.machine(), os.cpu_count(),
        " ".join("%.2f" % x for x in os.getloadavg())), file=sys.stderr)
    busy_measurements = [0]  # measurements taken without an idle machine
    peaks = {}  # mode -> {shape: GFLOP/s}
    for mode in cpp_modes:
        wait_for_idle(args.idle_percent, args.idle_timeout)
        peaks[mode] = matmul_peak(args.cpp_benchmark, MODES[mode][3],
                                  args.rounds, args.peak_min_time)

    def measure(mode, size, batch, seq_len):
        _, head, dtype, _ = MODES[mode]
        if head:
            return run_cpp(step_binary, head, size, batch, seq_len,
                           args.dropout, args.min_time, args.step)
        return run_pytorch(dtype, size, batch, seq_len, args.dropout, threads,
                           args.min_time, args.omp_wait_policy, args.step)

    results = []  # (size, batch, seq_len, {mode: best row})
    turn = 0
    for size, batch, seq_len in configs:
        rows = {mode: [] for mode in modes}
        for _ in range(args.rounds):
            order = modes[turn % len(modes):] + modes[:turn % len(modes)]
            turn += 1
            for mode in order:
                # Measure again while other processes took more than
                # --max_others of the machine during the run.
                for _ in range(args.max_attempts):
                    if wait_for_idle(args.idle_percent,
                                     args.idle_timeout) is None:
                        busy_measurements[0] += 1
                    rows[mode].append(measure(mode, size, batch, seq_len))
                    if rows[mode][-1]["others"] <= args.max_others:
                        break
                    print("    disturbed (others used %.0f%% of the CPUs), "
                          "measuring again" % (100 * rows[mode][-1]["others"]),
                          file=sys.stderr)
        best = {mode: best_of(rows[mode]) for mode in modes}
        results.append((size, batch, seq_len, best))
        print("  %s batch %d seq %d: %s" % (size, batch, seq_len, ", ".join(
            "%s %.0f tokens/s (loss %.3f)" % (
                MODES[m][0], best[m]["tokens_per_second"], best[m]["loss"])
            for m in modes)), file=sys.stderr)

    def peak_gflops(mode):
        return max(peaks[mode].values()) if mode in peaks else None

    def cell(best, mode, text):
        if mode in best:
            return text(best[mode])
        if mode in BF16_MODES and not has_bf16:
            return NO_BF16
        return "not run"

    def faster_torch(best):
        """The faster PyTorch mode of a row, or None."""
        run = [m for m in TORCH_MODES if m in best]
        if not run:
            return None
        return max(run, key=lambda m: best[m]["tokens_per_second"])

    def ratio(best):
        """C++ BF16 / the faster PyTorch mode, or None."""
        other = faster_torch(best)
        if "cpp_bf16" not in best or other is None:
            return None
        return (best["cpp_bf16"]["tokens_per_second"] /
                best[other]["tokens_per_second"])

    torch_version = next((best[m]["torch"] for _, _, _, best in results
                          for m in TORCH_MODES if m in best), "?")
    what = ("BertForPreTraining (MLM on 20 positions per sequence at "
            "sequence length 128, 76 at 512, + NSP)"
            if args.step == "pretraining" else
            "the fine-tuning classifier (BertForFinetuning: 3 labels on the "
            "pooled [CLS], sequence length 128; GFLOP/s count the encoder)")
    print("Forward + backward of %s, %d threads, dropout %g; best of %d "
          "rounds per mode, the modes alternating; %s; PyTorch %s with "
          "OMP_WAIT_POLICY=%s." % (
              what, threads, args.dropout, args.rounds,
              platform.node() or "host", torch_version, args.omp_wait_policy))
    print("C++ FP32 OpenBLAS / oneDNN = the openblas / onednn GEMM engines; "
          "C++ BF16 = oneDNN in BF16 precision (GEMM inputs rounded to bf16, "
          "FP32 sums and everything else FP32); PyTorch BF16 = the whole "
          "model cast with model.to(torch.bfloat16) (bf16 parameters, "
          "activations and gradients).")
    for mode in cpp_modes:
        print("%s peak (%d threads): %s GFLOP/s; %% of peak uses %.1f." % (
            MODES[mode][3], threads, ", ".join(
                "%s %.1f" % kv for kv in sorted(peaks[mode].items())),
            peak_gflops(mode)))
    if not has_bf16:
        print("BM_OneDnnBf16MatmulPeak: " + NO_BF16 + ".")
    print()

    titles = [MODES[m][0] for m in MODES]
    print("| size | batch | seq | " +
          " | ".join("%s tokens/s" % t for t in titles) +
          " | C++ BF16 / faster PyTorch | C++ BF16 GFLOP/s "
          "| % of bf16 matmul peak | peak RSS MiB C++ BF16 "
          "| peak RSS MiB faster PyTorch |")
    print("|---|---|---|" + "---|" * (len(MODES) + 5))
    for size, batch, seq_len, best in results:
        r, other = ratio(best), faster_torch(best)
        bf16_peak = peak_gflops("cpp_bf16")
        print("| %s | %d | %d | %s | %s | %s | %s | %s | %s |" % (
            size, batch, seq_len,
            " | ".join(cell(best, m, lambda b: "%.0f" % b["tokens_per_second"])
                       for m in MODES),
            "%.2fx (vs %s)" % (r, MODES[other][0]) if r is not None
            else cell(best, "cpp_bf16", lambda b: "n/a (no PyTorch run)"),
            cell(best, "cpp_bf16", lambda b: "%.1f" % b["gflops_per_second"]),
            cell(best, "cpp_bf16",
                 lambda b: "%.0f%%" % (100 * b["gflops_per_second"] /
                                       bf16_peak)),
            cell(best, "cpp_bf16", lambda b: "%.0f" % b["peak_rss_mib"]),
            "%.0f (%s)" % (best[other]["peak_rss_mib"], MODES[other][0])
            if other else "not run"))
    print()

    # Every mode's GFLOP/s (the C++ ones also as a share of their engine's
    # matmul peak) and peak RSS.
    def gflops(mode):
        def text(b):
            peak = peak_gflops(mode)
            if peak is None:
                return "%.1f" % b["gflops_per_second"]
            return "%.1f (%.0f%%)" % (b["gflops_per_second"],
                                      100 * b["gflops_per_second"] / peak)
        return text

    print("| size | batch | seq | " +
          " | ".join("%s GFLOP/s" % t for t in titles) + " | " +
          " | ".join("%s peak RSS MiB" % t for t in titles) +
          " | others' CPU share, worst kept |")
    print("|---|---|---|" + "---|" * (2 * len(MODES) + 1))
    for size, batch, seq_len, best in results:
        print("| %s | %d | %d | %s | %s | %.0f%% |" % (
            size, batch, seq_len,
            " | ".join(cell(best, m, gflops(m)) for m in MODES),
            " | ".join(cell(best, m, lambda b: "%.0f" % b["peak_rss_mib"])
                       for m in MODES),
            100 * max(b["others"] for b in best.values())))
    print()

    ratios = [(ratio(best), size, batch, seq_len, faster_torch(best))
              for size, batch, seq_len, best in results
              if ratio(best) is not None]
    if ratios:
        worst = min(ratios)
        print("Worst C++ BF16 / faster PyTorch: %.2fx at %s batch %d seq %d "
              "(against %s)." % (worst[0], worst[1], worst[2], worst[3],
                                 MODES[worst[4]][0]))
    elif not has_bf16:
        print("Worst C++ BF16 / faster PyTorch: " + NO_BF16 + ".")
    else:
        print("Worst C++ BF16 / faster PyTorch: not measured (--modes).")
    print("Load average at end: %s; %.0f s in all; %d measurement(s) started "
          "without the machine %g%% idle." % (
              " ".join("%.2f" % x for x in os.getloadavg()),
              time.time() - start, busy_measurements[0], args.idle_percent))


if __name__ == "__main__":
    main()
