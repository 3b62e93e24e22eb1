#!/usr/bin/env python3
"""An independent float64 reference of BERT's optimizer step, and the fixture
that checks bertlab's C++ optimizer (model/optim) against it.

Regenerate the committed fixture from the repository root with

  /usr/bin/python3 tools/reference/adamw_reference.py --out_dir model/testdata

which writes model/testdata/adamw_reference.safetensors. Like
bert_reference.py it needs only Debian's python3-torch (written against 1.13);
always call /usr/bin/python3. The output is deterministic for a given torch
version, and nothing is written unless the self-checks below pass.

Only the optimizer is under test: the gradients are fixed random tensors (one
per parameter, step and micro-batch), stored in the fixture, not computed from
a loss. The parameter set is a tiny BertForPreTraining of bert_reference.py
(vocab 13, hidden 8, 1 layer, 2 heads, intermediate 16, 7 positions: 983
values in 30 tensors), so the names, and hence the weight-decay mask, are the
real model's.

One optimizer step k = 0, 1, ... (k = the number of steps already taken, TF's
global_step), written from google-research/bert optimization.py
(create_optimizer and AdamWeightDecayOptimizer) and, for the bias-corrected
variant, from torch.optim.AdamW:

  gradient accumulation (HF Trainer's rule: each micro-batch's loss is divided
  by the number of micro-batches, so the gradient is their mean):
    g = (g_micro0 + g_micro1) / 2
  global-norm clipping (tf.clip_by_global_norm, clip_norm 1.0):
    norm = sqrt(sum over every parameter and element of g^2)
    g   *= clip_norm / max(norm, clip_norm)
  learning rate (polynomial_decay(power 1, end 0) over num_train_steps counted
  from step 0, overridden by linear warmup while k < num_warmup_steps):
    lr_k = base_lr * k / warmup                  if k < warmup
         = base_lr * (1 - min(k, total) / total)   otherwise
  AdamW, t = k + 1:
    m = beta1 m + (1 - beta1) g
    v = beta2 v + (1 - beta2) g^2
    no bias correction (BERT):  update = m / (sqrt(v) + eps)
    bias correction (torch.optim.AdamW):
                                update = m_hat / (sqrt(v_hat) + eps),
                                m_hat = m / (1 - beta1^t), v_hat = v / (1 - beta2^t)
    unless the name contains "LayerNorm", "layer_norm" or "bias":
                                update += weight_decay * param
    param -= lr_k * update
  Hyperparameters: base_lr 1e-3, warmup 2, total 10, 5 steps, 2 micro-batches,
  beta1 0.9, beta2 0.999, eps 1e-6, weight_decay 0.01, clip_norm 1.0.
  Note lr_0 = 0: the first step changes only m and v, as in the reference.

Everything is computed in float64 from the stored float32 initial parameters
and gradients; results are stored rounded to float32.

Fixture tensors (F32; <name> runs over the HF parameter names):
  init.<name>                       initial parameters
  grad.step<k>.micro<j>.<name>      the gradient of micro-batch j in step k
                                    (k = 1..5, j = 0, 1)
  schedule.learning_rate            [5] lr used by steps 1..5
  clip.global_norm                  [5] norm of the averaged gradient, before
                                    clipping
  clip.scale                        [5] the factor the gradient was scaled by
  <variant>.step<k>.<name>          parameters after step k
  <variant>.delta.step<k>.<name>    (parameters after step k) - init, taken
                                    in float64 before rounding, so the
                                    optimizer's effect is stored to float32's
                                    relative precision
  <variant>.m.<name>, <variant>.v.<name>   the moments after step 5
  variant: "no_bias_correction" (BERT) and "bias_correction".
  __metadata__: config (the model's config.json, as bert_reference.py writes
  it), optimizer (the hyperparameters above as JSON), generator, seed,
  description.

Self-checks run before writing:
  * the schedule at hand-computed points;
  * the gradients are clipped in some steps and not in others, and the mask
    both decays and excludes parameters;
  * step 1 (lr 0) leaves every parameter exactly unchanged;
  * the bias-corrected run agrees with torch.optim.AdamW (float64, weight
    decay 0 for the excluded parameters) fed the same clipped gradients;
  * the written file reads back bit-identical.
"""

import argparse
import json
import math
import os
import sys

import torch

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bert_reference  # noqa: E402
import safetensors_io  # noqa: E402

SEED = 2024
STEPS = 5
MICRO_BATCHES = 2
BASE_LR = 1e-3
WARMUP_STEPS = 2
TOTAL_STEPS = 10
BETA1 = 0.9
BETA2 = 0.999
EPSILON = 1e-6
WEIGHT_DECAY = 0.01
CLIP_NORM = 1.0
# Per-step gradient size (standard deviation of every entry); chosen so the
# averaged gradient's norm is above CLIP_NORM in some steps and below in
# others.
GRADIENT_STD = (0.08, 0.3, 0.01, 0.15, 0.02)
# google-research/bert optimization.py: exclude_from_weight_decay.
EXCLUDE_FROM_WEIGHT_DECAY = ("LayerNorm", "layer_norm", "bias")
VARIANTS = (("no_bias_correction", False), ("bias_correction", True))


def make_config():
    config = bert_reference.make_config("bidirectional")
    config.update({
        "vocab_size": 13,
        "hidden_size": 8,
        "num_hidden_layers": 1,
        "num_attention_heads": 2,
        "intermediate_size": 16,
        "max_position_embeddings": 7,
    })
    return config


def decays(name):
    return not any(word in name for word in EXCLUDE_FROM_WEIGHT_DECAY)


def learning_rate(step):
    if step < WARMUP_STEPS:
        return BASE_LR * step / WARMUP_STEPS
    return BASE_LR * (1.0 - min(step, TOTAL_STEPS) / TOTAL_STEPS)


def make_gradients(init):
    """{(step, micro): {name: float32 tensor}}, step 1-based."""
    grads = {}
    for step in range(1, STEPS + 1):
        for micro in range(MICRO_BATCHES):
            grads[step, micro] = {
                name: (GRADIENT_STD[step - 1] *
                       torch.randn(p.shape, dtype=torch.float64)).to(
                           torch.float32)
                for name, p in init.items()
            }
    return grads


def prepared_gradients(grads, step):
    """The averaged, clipped gradient of `step` (float64), its pre-clip norm
    and the clip factor."""
    names = grads[step, 0].keys()
    g = {name: sum(grads[step, j][name].to(torch.float64)
                   for j in range(MICRO_BATCHES)) / MICRO_BATCHES
         for name in names}
    norm = math.sqrt(sum(float((t * t).sum()) for t in g.values()))
    scale = CLIP_NORM / max(norm, CLIP_NORM)
    return {name: t * scale for name, t in g.items()}, norm, scale


def run(init, grads, bias_correction):
    """Returns per-step parameters, the final moments, and the lr / norm /
    scale of every step (all float64)."""
    params = {n: p.to(torch.float64).clone() for n, p in init.items()}
    m = {n: torch.zeros_like(p) for n, p in params.items()}
    v = {n: torch.zeros_like(p) for n, p in params.items()}
    history, lrs, norms, scales = [], [], [], []
    for k in range(STEPS):
        g, norm, scale = prepared_gradients(grads, k + 1)
        lr = learning_rate(k)
        t = k + 1
        for name in params:
            m[name] = BETA1 * m[name] + (1.0 - BETA1) * g[name]
            v[name] = BETA2 * v[name] + (1.0 - BETA2) * g[name] * g[name]
            if bias_correction:
                m_hat = m[name] / (1.0 - BETA1**t)
                v_hat = v[name] / (1.0 - BETA2**t)
            else:
                m_hat, v_hat = m[name], v[name]
            update = m_hat / (torch.sqrt(v_hat) + EPSILON)
            if decays(name):
                update = update + WEIGHT_DECAY * params[name]
            params[name] = params[name] - lr * update
        history.append({n: p.clone() for n, p in params.items()})
        lrs.append(lr)
        norms.append(norm)
        scales.append(scale)
    return history, m, v, lrs, norms, scales


# ----------------------------------------------------------------------------
# Self-checks.


def check_schedule():
    expected = {0: 0.0, 1: 5e-4, 2: 8e-4, 3: 7e-4, 5: 5e-4, 9: 1e-4,
                10: 0.0, 12: 0.0}
    for step, lr in expected.items():
        assert abs(learning_rate(step) - lr) <= 1e-18, (step,
                                                         learning_rate(step))
    print("  schedule ok: %s" % ", ".join(
        "lr(%d)=%g" % (s, learning_rate(s)) for s in sorted(expected)))


def check_coverage(init, norms):
    clipped = sum(n > CLIP_NORM for n in norms)
    assert 0 < clipped < len(norms), norms
    decayed = sum(decays(n) for n in init)
    assert 0 < decayed < len(init)
    print("  coverage ok: %d of %d steps clipped (norms %s); %d of %d "
          "parameters decayed" % (clipped, len(norms),
                                  ", ".join("%.4f" % n for n in norms),
                                  decayed, len(init)))


def check_first_step_is_frozen(init, history):
    for name, p in init.items():
        assert torch.equal(history[0][name], p.to(torch.float64)), name
    print("  step 1 (lr 0) leaves every parameter unchanged")


def check_against_torch_adamw(init, grads, history, m, v):
    names = list(init)
    params = {n: torch.nn.Parameter(init[n].to(torch.float64).clone())
              for n in names}
    groups = [
        {"params": [params[n] for n in names if decays(n)],
         "weight_decay": WEIGHT_DECAY},
        {"params": [params[n] for n in names if not decays(n)],
         "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(groups, lr=BASE_LR, betas=(BETA1, BETA2),
                                  eps=EPSILON)
    worst = 0.0
    for k in range(STEPS):
        g, _, _ = prepared_gradients(grads, k + 1)
        for n in names:
            params[n].grad = g[n].clone()
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(k)
        optimizer.step()
        for n in names:
            ours, theirs = history[k][n], params[n].detach()
            error = float((ours - theirs).abs().max())
            allowed = 1e-14 * (1.0 + float(theirs.abs().max()))
            assert error <= allowed, (k, n, error)
            worst = max(worst, error)
    for n in names:
        state = optimizer.state[params[n]]
        for theirs, ours in ((state["exp_avg"], m[n]),
                             (state["exp_avg_sq"], v[n])):
            scale = float(ours.abs().max())
            assert float((theirs - ours).abs().max()) <= 1e-14 * scale, n
    print("  bias-corrected run = torch.optim.AdamW: max |difference| %.1e "
          "over %d steps" % (worst, STEPS))


# ----------------------------------------------------------------------------


def build_fixture():
    torch.manual_seed(SEED)
    config = make_config()
    model = bert_reference.BertForPreTraining(config).to(torch.float64)
    init = bert_reference.initialize(model, config)  # float32, HF names
    grads = make_gradients(init)
    print("seed %d, %d parameter tensors, %d values" %
          (SEED, len(init), sum(p.numel() for p in init.values())))

    tensors = {"init." + n: p for n, p in init.items()}
    for (step, micro), g in grads.items():
        for n, t in g.items():
            tensors["grad.step%d.micro%d.%s" % (step, micro, n)] = t

    check_schedule()
    for variant, bias_correction in VARIANTS:
        history, m, v, lrs, norms, scales = run(init, grads, bias_correction)
        if not bias_correction:
            check_coverage(init, norms)
            check_first_step_is_frozen(init, history)
        else:
            check_against_torch_adamw(init, grads, history, m, v)
        for k, params in enumerate(history, start=1):
            for n, p in params.items():
                tensors["%s.step%d.%s" % (variant, k, n)] = p.to(torch.float32)
                tensors["%s.delta.step%d.%s" % (variant, k, n)] = (
                    p - init[n].to(torch.float64)).to(torch.float32)
        for n in init:
            tensors["%s.m.%s" % (variant, n)] = m[n].to(torch.float32)
            tensors["%s.v.%s" % (variant, n)] = v[n].to(torch.float32)
        print("  [%s] final |delta| max %.3e" % (variant, max(
            float((history[-1][n] - init[n].to(torch.float64)).abs().max())
            for n in init)))
    tensors["schedule.learning_rate"] = torch.tensor(lrs, dtype=torch.float32)
    tensors["clip.global_norm"] = torch.tensor(norms, dtype=torch.float32)
    tensors["clip.scale"] = torch.tensor(scales, dtype=torch.float32)

    optimizer = {
        "base_learning_rate": BASE_LR,
        "warmup_steps": WARMUP_STEPS,
        "total_steps": TOTAL_STEPS,
        "steps": STEPS,
        "micro_batches": MICRO_BATCHES,
        "beta1": BETA1,
        "beta2": BETA2,
        "epsilon": EPSILON,
        "weight_decay": WEIGHT_DECAY,
        "clip_norm": CLIP_NORM,
        "exclude_from_weight_decay": list(EXCLUDE_FROM_WEIGHT_DECAY),
    }
    metadata = {
        "config": json.dumps(config, indent=2) + "\n",
        "optimizer": json.dumps(optimizer, indent=2) + "\n",
        "generator": "tools/reference/adamw_reference.py (torch %s)" %
                     torch.__version__,
        "seed": str(SEED),
        "description": (
            "BERT's AdamW (google-research/bert AdamWeightDecayOptimizer; "
            "and with torch.optim.AdamW's bias correction) after gradient "
            "accumulation over 2 micro-batches, global-norm clipping to 1.0 "
            "and BERT's warmup/decay schedule, on the parameters of a tiny "
            "BertForPreTraining with fixed random gradients; float64, "
            "stored as float32."),
    }
    return tensors, metadata


def write_and_verify(tensors, metadata, path):
    safetensors_io.save_file(tensors, path, metadata)
    back, back_metadata = safetensors_io.load_file(path)
    assert back_metadata == metadata
    assert sorted(back) == sorted(tensors)
    for name, t in tensors.items():
        assert back[name].dtype == t.dtype and back[name].shape == t.shape, name
        assert torch.equal(back[name], t), name
    print("  wrote %s: %d tensors, %d bytes; read back identical" %
          (path, len(tensors), os.path.getsize(path)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out_dir", default="model/testdata")
    args = parser.parse_args()
    torch.set_num_threads(1)  # bit-reproducible reductions
    os.makedirs(args.out_dir, exist_ok=True)
    tensors, metadata = build_fixture()
    write_and_verify(tensors, metadata,
                     os.path.join(args.out_dir,
                                  "adamw_reference.safetensors"))


if __name__ == "__main__":
    main()
