#!/usr/bin/env python3
"""PyTorch twin of //model:pretraining_step_benchmark: the same
BertForPreTraining training step (forward + backward of masked LM + next
sentence), timed on the CPU in float32 or bfloat16, so bertlab's C++ can be
compared with PyTorch on the same machine
(tools/bench/compare_pretraining_step.sh does that). With --step
classification, the twin of //model:finetuning_step_benchmark instead (below).

  /usr/bin/python3 tools/reference/bench_pytorch.py                # all configs
  /usr/bin/python3 tools/reference/bench_pytorch.py --sizes base --batches 8
  /usr/bin/python3 tools/reference/bench_pytorch.py --sizes base \
      --batches 8 --seq_len 512 --dtype bfloat16

The work per step is the C++ benchmark's (model/pretraining_step_benchmark.cc):
  * sequence length --seq_len (128, default, or 512), every token real, token
    types 0 then 1 (half each);
  * masked LM at PREDICTIONS_PER_SEQUENCE[seq_len] distinct random positions
    per sequence (20 at 128, 76 at 512: max_predictions_per_seq, the C++
    file's kSeq128 and kSeq512), never position 0: the LM head runs on the
    gathered positions only, as google-research bert's run_pretraining.py and
    bertlab do (not on every token as HF);
    NSP with random labels; loss = mean MLM cross-entropy + NSP cross-entropy;
  * dropout --dropout (default 0.1, BERT's) at BERT's four sites (embeddings,
    attention probabilities, attention output, FFN output), training mode;
    0 removes the dropout modules;
  * one step = model.zero_grad(set_to_none=True), forward, loss.backward()
    (no optimizer update);
  * --step classification (sequence length 128 only) replaces both heads by
    the fine-tuning classifier of model/finetuning_step_benchmark.cc: the
    pooled [CLS] vector, dropout, a (hidden, 3) dense layer, cross-entropy
    with random labels of 3 (MNLI's); its GFLOP/s count the encoder only
    (model/bert/flops.h), as the C++ benchmark's do;
  * torch.set_num_threads(--threads) (default 2); OpenBLAS, which PyTorch's
    Debian build calls for float GEMMs, follows OPENBLAS_NUM_THREADS, set to
    the same value before torch is imported;
  * OMP_WAIT_POLICY=--omp_wait_policy (default PASSIVE), also set before
    torch is imported. PyTorch's elementwise ops run on an OpenMP pool whose
    threads by default spin after each parallel region, while OpenBLAS's own
    threads spin after each GEMM: on 2 cores the two pools take the cores from
    each other. PASSIVE lets the OpenMP threads sleep, which made this step
    1.3x (BASE) to 2.9x (L2_H128_A2, batch 8) faster here, so it is the
    default: the reference gets its best configuration. "default" leaves the
    variable unset.

The model is bert_reference.py's (HF BertForPreTraining math and names,
separate query/key/value projections, exact-erf GELU, LayerNorm eps 1e-12,
additive -10000 mask), with dropout added and the LM head applied at the
masked positions. Parameters are drawn as BERT does (normal 0.02 for weights,
LayerNorm 1 and 0), which does not change the timing.

--dtype float32 (default) runs it all in float32. --dtype bfloat16 casts the
whole model with model.to(torch.bfloat16) after drawing the parameters: pure
bf16 parameters, activations, gradients and losses, the fastest bf16 mode of
torch 1.13 here. It is not the arithmetic of the C++ BF16 precision,
which rounds only the GEMM inputs to bf16 and keeps sums, activations and
gradients in FP32: it is PyTorch's best bf16 speed, not a numerical twin.
torch.autocast("cpu", dtype=torch.bfloat16) is not offered: on torch 1.13 it
stops at the MLM head's LayerNorm (a bf16 input with float32 weights,
"expected scalar type BFloat16 but found Float").

Each configuration runs in a fresh child process (this script with --child),
so its peak RSS (ru_maxrss of that child, from os.wait4) belongs to that
configuration alone; it includes the Python interpreter and libtorch. The
child warms up (--warmup steps), then times steps until --min_time seconds
and at least --min_iterations steps have passed. Output: one JSON object per
configuration on stdout (--format json) or a Markdown table (default).
"""

import argparse
import json
import math
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True

SIZES = {  # model/bert/config.cc: (layers, hidden, heads); intermediate 4H
    "L2_H128_A2": (2, 128, 2),
    "L4_H256_A4": (4, 256, 4),
    "L4_H512_A8": (4, 512, 8),
    "L8_H512_A8": (8, 512, 8),
    "base": (12, 768, 12),
}
VOCAB = 30522
# max_predictions_per_seq per sequence length, as the C++ benchmark's kSeq128
# and kSeq512 (its header says where 20 and 76 come from).
PREDICTIONS_PER_SEQUENCE = {128: 20, 512: 76}
MAX_POSITIONS = 512
TYPE_VOCAB = 2
MASK_VALUE = -10000.0


NUM_LABELS = 3  # --step classification: MNLI's, as the C++ benchmark
STEPS = ("pretraining", "classification")


def step_flops(size, batch, seq_len, step="pretraining"):
    """docs/PAPER.md 5e, as the C++ benchmarks count them (the
    classification step: the encoder only)."""
    layers, hidden, _ = SIZES[size]
    intermediate = 4 * hidden
    matmul_params = layers * (4 * hidden * hidden + 2 * hidden * intermediate)
    per_token = 6 * matmul_params + 12 * layers * seq_len * hidden
    if step == "classification":
        return batch * seq_len * per_token
    per_prediction = 6 * (hidden * hidden + hidden * VOCAB)
    return (batch * seq_len * per_token +
            batch * PREDICTIONS_PER_SEQUENCE[seq_len] * per_prediction)


def build_model(torch, size, dropout, step="pretraining"):
    from torch import nn
    from torch.nn import functional as F

    layers, hidden, heads = SIZES[size]
    intermediate = 4 * hidden
    head_dim = hidden // heads
    eps = 1e-12

    def maybe_dropout():
        return nn.Dropout(dropout) if dropout > 0 else nn.Identity()

    class Embeddings(nn.Module):
        def __init__(self):
            super().__init__()
            self.word_embeddings = nn.Embedding(VOCAB, hidden)
            self.position_embeddings = nn.Embedding(MAX_POSITIONS, hidden)
            self.token_type_embeddings = nn.Embedding(TYPE_VOCAB, hidden)
            self.LayerNorm = nn.LayerNorm(hidden, eps=eps)
            self.dropout = maybe_dropout()

        def forward(self, input_ids, token_type_ids):
            positions = torch.arange(input_ids.shape[1])
            x = (self.word_embeddings(input_ids) +
                 self.position_embeddings(positions)[None] +
                 self.token_type_embeddings(token_type_ids))
            return self.dropout(self.LayerNorm(x))

    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.query = nn.Linear(hidden, hidden)
            self.key = nn.Linear(hidden, hidden)
            self.value = nn.Linear(hidden, hidden)
            self.probs_dropout = maybe_dropout()
            self.attention_dense = nn.Linear(hidden, hidden)
            self.attention_dropout = maybe_dropout()
            self.attention_norm = nn.LayerNorm(hidden, eps=eps)
            self.intermediate = nn.Linear(hidden, intermediate)
            self.output_dense = nn.Linear(intermediate, hidden)
            self.output_dropout = maybe_dropout()
            self.output_norm = nn.LayerNorm(hidden, eps=eps)

        def split(self, x):  # (B, T, H) -> (B, heads, T, d), as HF
            b, t, _ = x.shape
            return x.view(b, t, heads, head_dim).permute(0, 2, 1, 3)

        def forward(self, x, additive_mask):
            q = self.split(self.query(x))
            k = self.split(self.key(x))
            v = self.split(self.value(x))
            scores = q @ k.transpose(-1, -2) / math.sqrt(head_dim)
            probs = self.probs_dropout(torch.softmax(scores + additive_mask,
                                                     dim=-1))
            context = (probs @ v).permute(0, 2, 1, 3).flatten(2)
            h = self.attention_norm(
                x + self.attention_dropout(self.attention_dense(context)))
            f = self.output_dense(F.gelu(self.intermediate(h)))
            return self.output_norm(h + self.output_dropout(f))

    class Encoder(nn.Module):
        """Embeddings, layers and pooler: what both steps share."""
        def __init__(self):
            super().__init__()
            self.embeddings = Embeddings()
            self.layers = nn.ModuleList([Layer() for _ in range(layers)])
            self.pooler = nn.Linear(hidden, hidden)

        def encode(self, input_ids, token_type_ids, attention_mask):
            """The last layer's output and the pooled [CLS] vector."""
            x = self.embeddings(input_ids, token_type_ids)
            additive_mask = ((1.0 - attention_mask[:, None, None, :].to(
                x.dtype)) * MASK_VALUE)
            for layer in self.layers:
                x = layer(x, additive_mask)
            return x, torch.tanh(self.pooler(x[:, 0]))

    class Classifier(Encoder):
        """The fine-tuning classifier on the pooled [CLS] vector."""
        def __init__(self):
            super().__init__()
            self.classifier_dropout = maybe_dropout()
            self.classifier = nn.Linear(hidden, NUM_LABELS)

        def forward(self, input_ids, token_type_ids, attention_mask, labels):
            _, pooled = self.encode(input_ids, token_type_ids, attention_mask)
            return F.cross_entropy(
                self.classifier(self.classifier_dropout(pooled)), labels)

    class Model(Encoder):
        """BertForPreTraining: the MLM and next-sentence heads."""
        def __init__(self):
            super().__init__()
            self.transform = nn.Linear(hidden, hidden)
            self.transform_norm = nn.LayerNorm(hidden, eps=eps)
            self.decoder_bias = nn.Parameter(torch.zeros(VOCAB))
            self.seq_relationship = nn.Linear(hidden, 2)

        def forward(self, input_ids, token_type_ids, attention_mask,
                    positions, labels, next_sentence_labels):
            x, pooled = self.encode(input_ids, token_type_ids, attention_mask)
            gathered = x.reshape(-1, hidden)[positions]
            transformed = self.transform_norm(F.gelu(self.transform(gathered)))
            logits = (transformed @ self.embeddings.word_embeddings.weight.t()
                      + self.decoder_bias)
            masked_lm_loss = F.cross_entropy(logits, labels)
            next_sentence_loss = F.cross_entropy(
                self.seq_relationship(pooled), next_sentence_labels)
            return masked_lm_loss + next_sentence_loss

    model = Classifier() if step == "classification" else Model()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "norm" in name.lower():
                p.fill_(1.0 if name.endswith("weight") else 0.0)
            elif name.endswith("bias"):
                p.zero_()
            else:
                p.normal_(0.0, 0.02)
    return model.train()


def make_inputs(torch, batch, seq_len, seed=1234, step="pretraining"):
    gen = torch.Generator().manual_seed(seed)
    n = batch * seq_len
    input_ids = torch.randint(0, VOCAB, (batch, seq_len), generator=gen)
    token_type_ids = torch.zeros(batch, seq_len, dtype=torch.int64)
    token_type_ids[:, seq_len // 2:] = 1
    attention_mask = torch.ones(batch, seq_len, dtype=torch.int64)
    if step == "classification":
        labels = torch.randint(0, NUM_LABELS, (batch,), generator=gen)
        return input_ids, token_type_ids, attention_mask, labels
    predictions = PREDICTIONS_PER_SEQUENCE[seq_len]
    positions = []
    for b in range(batch):
        picked = 1 + torch.randperm(seq_len - 1, generator=gen)
        positions.append(b * seq_len + picked[:predictions].sort().values)
    positions = torch.cat(positions)
    assert positions.max() < n
    labels = torch.randint(0, VOCAB, (positions.numel(),), generator=gen)
    next_sentence_labels = torch.randint(0, 2, (batch,), generator=gen)
    return (input_ids, token_type_ids, attention_mask, positions, labels,
            next_sentence_labels)


def run_child(args):
    """Runs one configuration in this process; prints one JSON line."""
    os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    if args.omp_wait_policy != "default":
        os.environ["OMP_WAIT_POLICY"] = args.omp_wait_policy
    import torch
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    model = build_model(torch, args.sizes[0], args.dropout, args.step)
    if args.dtype == "bfloat16":
        model = model.to(torch.bfloat16)
    inputs = make_inputs(torch, args.batches[0], args.seq_len, step=args.step)

    def step():
        model.zero_grad(set_to_none=True)
        loss = model(*inputs)
        loss.backward()
        return loss.item()

    for _ in range(args.warmup):
        step()
    iterations = 0
    start = time.perf_counter()
    while True:
        loss = step()
        iterations += 1
        elapsed = time.perf_counter() - start
        if elapsed >= args.min_time and iterations >= args.min_iterations:
            break
    tokens = args.batches[0] * args.seq_len
    print(json.dumps({
        "size": args.sizes[0],
        "batch": args.batches[0],
        "seq_len": args.seq_len,
        "step": args.step,
        "predictions_per_sequence": (
            0 if args.step == "classification"
            else PREDICTIONS_PER_SEQUENCE[args.seq_len]),
        "dtype": args.dtype,
        "dropout": args.dropout,
        "threads": torch.get_num_threads(),
        "iterations": iterations,
        "seconds_per_step": elapsed / iterations,
        "tokens_per_second": tokens * iterations / elapsed,
        "gflops_per_second":
            step_flops(args.sizes[0], args.batches[0], args.seq_len,
                       args.step)
            * iterations
            / elapsed * 1e-9,
        "loss": loss,
        "torch": torch.__version__,
        "omp_wait_policy": args.omp_wait_policy,
    }), flush=True)


def run_parent(args):
    rows = []
    for size in args.sizes:
        for batch in args.batches:
            command = [sys.executable, os.path.abspath(__file__), "--child",
                       "--sizes", size, "--batches", str(batch),
                       "--seq_len", str(args.seq_len),
                       "--step", args.step,
                       "--dtype", args.dtype,
                       "--dropout", str(args.dropout),
                       "--threads", str(args.threads),
                       "--omp_wait_policy", args.omp_wait_policy,
                       "--warmup", str(args.warmup),
                       "--min_time", str(args.min_time),
                       "--min_iterations", str(args.min_iterations)]
            child = subprocess.Popen(command, stdout=subprocess.PIPE)
            output = child.stdout.read()
            _, status, usage = os.wait4(child.pid, 0)
            if status != 0:
                sys.exit("bench_pytorch.py: %s batch %d failed (status %d)" %
                         (size, batch, status))
            row = json.loads(output.decode().strip().splitlines()[-1])
            row["peak_rss_mib"] = usage.ru_maxrss / 1024.0  # KiB on Linux
            rows.append(row)
            if args.format == "json":
                print(json.dumps(row), flush=True)
    if args.format == "markdown":
        print("| size | batch | seq | dtype | tokens/s | GFLOP/s | s/step "
              "| peak RSS MiB |")
        print("|---|---|---|---|---|---|---|---|")
        for r in rows:
            print("| %s | %d | %d | %s | %.0f | %.1f | %.3f | %.0f |" % (
                r["size"], r["batch"], r["seq_len"], r["dtype"],
                r["tokens_per_second"],
                r["gflops_per_second"], r["seconds_per_step"],
                r["peak_rss_mib"]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", nargs="+", default=list(SIZES),
                        choices=list(SIZES))
    parser.add_argument("--batches", nargs="+", type=int, default=[8, 32])
    parser.add_argument("--seq_len", type=int, default=128,
                        choices=sorted(PREDICTIONS_PER_SEQUENCE),
                        help="sequence length; the masked LM predictions per "
                        "sequence follow it (20 at 128, 76 at 512)")
    parser.add_argument("--step", default="pretraining", choices=STEPS,
                        help="the step timed: BertForPreTraining's, or the "
                        "fine-tuning classifier's (see the top of the file)")
    parser.add_argument("--dtype", default="float32",
                        choices=["float32", "bfloat16"],
                        help="bfloat16: the whole model cast with "
                        "model.to(torch.bfloat16) (see the top of the file)")
    parser.add_argument("--dropout", type=float, default=0.1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--omp_wait_policy", default="PASSIVE",
                        choices=["PASSIVE", "ACTIVE", "default"],
                        help="OMP_WAIT_POLICY for PyTorch's OpenMP threads "
                        "(see the top of the file)")
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--min_time", type=float, default=2.0)
    parser.add_argument("--min_iterations", type=int, default=2)
    parser.add_argument("--format", choices=["markdown", "json"],
                        default="markdown")
    parser.add_argument("--child", action="store_true",
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.step == "classification" and args.seq_len != 128:
        parser.error("--step classification: --seq_len must be 128 (the C++ "
                     "fine-tuning benchmark's)")
    if args.child:
        run_child(args)
    else:
        run_parent(args)


if __name__ == "__main__":
    main()
