#!/usr/bin/env python3
"""Runs //model:pretraining_step_benchmark and tools/reference/bench_pytorch.py
on the same configurations, alternating between them, and prints one
Markdown table. Called by compare_pretraining_step.sh (which builds the C++
benchmark first); see tools/bench/README.md.

Every measurement runs in a fresh process, so its peak RSS (ru_maxrss of
that child, from os.wait4) is the configuration's own. Each configuration is
measured --rounds times, C++ and PyTorch alternately, and the table keeps
each side's fastest round: on a shared machine other processes only ever
slow a run down. Before each measurement the script waits (up to
--idle_timeout) for the CPUs to be --idle_percent idle, and after it compares
the machine's busy CPU time (/proc/stat) with the child's own: when other
processes took more than --max_others of the CPUs meanwhile, it measures again
(up to --max_attempts). The table's last column is that share for the rounds
it kept.
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


def run_cpp(binary, size, batch, dropout, min_time):
    name = "BM_PretrainingStep/%s/batch:%d/dropout:%d" % (size, batch,
                                                          dropout > 0)
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
            "peak_rss_mib": rss, "others": others}


def run_pytorch(size, batch, dropout, threads, min_time, omp_wait_policy):
    output, rss, others = run_child([
        "/usr/bin/python3", PYTORCH_BENCH, "--child", "--sizes", size,
        "--batches", str(batch), "--dropout", str(dropout), "--threads",
        str(threads), "--warmup", "1", "--min_time", str(min_time),
        "--min_iterations", "2", "--omp_wait_policy", omp_wait_policy])
    row = json.loads(output.strip().splitlines()[-1])
    row["peak_rss_mib"] = rss
    row["others"] = others
    return row


def sgemm_peak(binary, rounds):
    """{shape name: best GFLOP/s} of BM_SgemmPeak over `rounds` runs."""
    best = {}
    for _ in range(rounds):
        output, _, _ = run_child([binary, "--benchmark_filter=^BM_SgemmPeak/",
                               "--benchmark_format=json",
                               "--benchmark_min_time=1"])
        for run in json.loads(output)["benchmarks"]:
            shape = run["name"].split("/")[1:4]  # m:.., n:.., k:..
            key = "x".join(part.split(":")[1] for part in shape)
            best[key] = max(best.get(key, 0.0), run["GFLOP/s"])
    return best


def best_of(rows):
    """The fastest measurement; its `others` says how disturbed it was."""
    best = dict(max(rows, key=lambda r: r["tokens_per_second"]))
    best["peak_rss_mib"] = max(r["peak_rss_mib"] for r in rows)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cpp_benchmark", required=True,
                        help="path of the built pretraining_step_benchmark")
    parser.add_argument("--sizes", nargs="+", default=SIZES, choices=SIZES)
    parser.add_argument("--batches", nargs="+", type=int, default=[8, 32])
    parser.add_argument("--skip", nargs="*", default=[],
                        help="size:batch pairs to leave out, e.g. base:32")
    parser.add_argument("--dropout", type=float, default=0.1,
                        help="0.1 (BERT's, both sides) or 0 (none)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--omp_wait_policy", default="PASSIVE",
                        choices=["PASSIVE", "ACTIVE", "default"],
                        help="PyTorch's OMP_WAIT_POLICY (bench_pytorch.py "
                        "explains the PASSIVE default)")
    parser.add_argument("--min_time", type=float, default=2.0,
                        help="seconds each measurement runs at least")
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
                        "anyway (the table then says so)")
    args = parser.parse_args()
    if args.dropout not in (0.0, 0.1):
        sys.exit("--dropout: the C++ benchmark has 0.1 (dropout:1) or 0")
    threads = 2

    start = time.time()
    print("Machine: %s, %d CPUs, load average at start %s" % (
        platform.processor() or platform.machine(), os.cpu_count(),
        " ".join("%.2f" % x for x in os.getloadavg())), file=sys.stderr)
    busy_measurements = [0]  # measurements taken without an idle machine
    wait_for_idle(args.idle_percent, args.idle_timeout)
    peak = sgemm_peak(args.cpp_benchmark, args.rounds)
    peak_gflops = max(peak.values())
    results = []
    for size in args.sizes:
        for batch in args.batches:
            if "%s:%d" % (size, batch) in args.skip:
                continue
            cpp_rows, torch_rows = [], []
            for _ in range(args.rounds):
                for rows, run in ((cpp_rows, lambda: run_cpp(
                        args.cpp_benchmark, size, batch, args.dropout,
                        args.min_time)), (torch_rows, lambda: run_pytorch(
                            size, batch, args.dropout, threads,
                            args.min_time, args.omp_wait_policy))):
                    # Measure again while other processes took more than
                    # --max_others of the machine during the run.
                    for attempt in range(args.max_attempts):
                        if wait_for_idle(args.idle_percent,
                                         args.idle_timeout) is None:
                            busy_measurements[0] += 1
                        rows.append(run())
                        if rows[-1]["others"] <= args.max_others:
                            break
                        print("    disturbed (others used %.0f%% of the "
                              "CPUs), measuring again" %
                              (100 * rows[-1]["others"]), file=sys.stderr)
            cpp, torch = best_of(cpp_rows), best_of(torch_rows)
            results.append((size, batch, cpp, torch))
            print("  %s batch %d: C++ %.0f tokens/s, PyTorch %.0f tokens/s" %
                  (size, batch, cpp["tokens_per_second"],
                   torch["tokens_per_second"]), file=sys.stderr)

    print("Forward + backward of BertForPreTraining (MLM on 20 positions per "
          "sequence + NSP), sequence 128, %d threads, dropout %g; best of %d "
          "alternating rounds per side; %s; PyTorch %s with "
          "OMP_WAIT_POLICY=%s." % (
              threads, args.dropout, args.rounds, platform.node() or "host",
              results[0][3]["torch"] if results else "?",
              args.omp_wait_policy))
    print("cblas_sgemm peak (%d threads): %s GFLOP/s; %% of peak uses %.1f." %
          (threads, ", ".join("%s %.1f" % kv for kv in sorted(peak.items())),
           peak_gflops))
    print()
    print("| size | batch | C++ tokens/s | PyTorch tokens/s | C++ / PyTorch "
          "| C++ GFLOP/s | % of sgemm peak | PyTorch GFLOP/s "
          "| peak RSS C++ MiB | peak RSS PyTorch MiB | others' CPU share "
          "C++ / PyTorch |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for size, batch, cpp, torch in results:
        print("| %s | %d | %.0f | %.0f | %.2fx | %.1f | %.0f%% | %.1f | %.0f "
              "| %.0f | %.0f%% / %.0f%% |" % (
                  size, batch, cpp["tokens_per_second"],
                  torch["tokens_per_second"],
                  cpp["tokens_per_second"] / torch["tokens_per_second"],
                  cpp["gflops_per_second"],
                  100 * cpp["gflops_per_second"] / peak_gflops,
                  torch["gflops_per_second"], cpp["peak_rss_mib"],
                  torch["peak_rss_mib"], 100 * cpp["others"],
                  100 * torch["others"]))
    print()
    print("Load average at end: %s; %.0f s in all; %d measurement(s) started "
          "without the machine %g%% idle." % (
              " ".join("%.2f" % x for x in os.getloadavg()),
              time.time() - start, busy_measurements[0], args.idle_percent))


if __name__ == "__main__":
    main()
