#!/usr/bin/env python3
"""An independent float64 reference of HF BertForPreTraining, and the fixtures
that check bertlab's C++ model (model/bert/encoder.h,
model/heads/pretraining_heads.h) against it.

Regenerate the committed fixtures from the repository root with

  /usr/bin/python3 tools/reference/bert_reference.py --out_dir model/testdata

which writes

  model/testdata/bert_reference_bidirectional.safetensors
  model/testdata/bert_reference_causal.safetensors
  model/testdata/bert_reference_reverse_causal.safetensors

(--modes bidirectional,causal,reverse_causal, the default, picks which).

It needs only PyTorch for the system python (Debian: `sudo apt-get install
python3-torch`; written against 1.13) -- not transformers, not the
safetensors package (tools/reference/safetensors_io.py reads and writes the
files). Always call /usr/bin/python3: another python3 on PATH may lack torch.
The output is deterministic for a given torch version; the script refuses to
write anything unless its self-checks pass (see below), and prints them.

The model is written here from the math, with torch.nn modules and autograd,
not copied from transformers. Module and parameter names follow HF exactly,
so `named_parameters()` yields the HF BertForPreTraining names:

  e  = LayerNorm(word[ids] + position[t] + token_type[types])
  per layer (post-LN):
    q, k, v = x Wq^T + bq, x Wk^T + bk, x Wv^T + bv     (HF [out, in] weights)
    head a uses columns a*d .. (a+1)*d, d = hidden / heads
    scores  = q k^T / sqrt(d) + mask, mask = -10000.0 (added once) at key j
              when attention_mask[b, j] == 0 or, causal only, when j > i,
              or, reverse_causal only, when j < i
    context = softmax_j(scores) v, heads concatenated back in order
    h   = LayerNorm(x + context Wo^T + bo)
    out = LayerNorm(h + GELU(h W1^T + b1) W2^T + b2)     GELU = exact erf
  pooled = tanh(out[:, 0] Wp^T + bp)
  prediction_logits = LayerNorm(GELU(out Wt^T + bt)) word^T + cls.predictions.bias
                      at every position (B, T, V); the decoder is tied to
                      bert.embeddings.word_embeddings.weight, so that
                      parameter's gradient is the sum of both uses
  seq_relationship_logits = pooled Ws^T + bs                         (B, 2)
  masked_lm_loss     = mean CE of prediction_logits over labels != -100
  next_sentence_loss = mean CE of seq_relationship_logits
  loss = masked_lm_loss + next_sentence_loss
No dropout anywhere (eval math; the config says 0).

Everything is computed in float64 from parameters first rounded to float32,
and stored as float32 (integers as int64), so the stored values are the
float32 rounding of the exact answer for the stored float32 weights.

Fixtures (config: vocab 101, hidden 32, 2 layers, 4 heads, intermediate 64,
max positions 40, 2 token types, eps 1e-12, gelu):
  <HF name>                 every parameter, F32
  input.input_ids, input.token_type_ids, input.attention_mask,
  input.masked_lm_labels    (B, T) = (2, 29), I64
  input.next_sentence_label (B) = [0, 1], I64
  output.prediction_logits (B, T, V), output.seq_relationship_logits (B, 2),
  output.loss, output.masked_lm_loss, output.next_sentence_loss (scalars []),
  output.last_hidden_state (B, T, H), output.pooled_output (B, H)
  grad.<HF name>            d loss / d parameter, for every parameter
  causal and reverse_causal fixtures only: grad_masked_lm.<HF name>,
                            d masked_lm_loss / d parameter (the "LTR & No
                            NSP" objective and its right-to-left mirror;
                            pooler and seq_relationship gradients are zero
                            there)
  __metadata__: config (config.json text, with bertlab's "attention_mode"),
                generator (script and torch version), seed, description

Initialization differs from BERT's on purpose: weights ~ N(0, 0.2) instead
of N(0, 0.02) so activations are not tiny (config's initializer_range says
0.2), biases ~ N(0, 0.1) instead of 0 so bias gradients are exercised,
LayerNorm gamma ~ 1 + N(0, 0.1) and beta ~ N(0, 0.1). Word-embedding row 0
is not zeroed.

Inputs: sequence 0 is 29 real tokens, sequence 1 has 21 real tokens then 8
padding positions (attention_mask 0, token type 0); token types are 0 for the
first segment and 1 for the second. input_ids are drawn from [1, V): id 0 is
HF's pad_token_id, whose nn.Embedding(padding_idx=0) row gets no lookup
gradient in HF; google-research/bert and bertlab have no such exception, and
avoiding id 0 makes the fixture agree with both. Bidirectional labels: 5
random positions per sequence (among its real tokens, not position 0) get a
random label id in [0, V), -100 elsewhere. Causal labels are a left-to-right
LM's: label[t] = input_ids[t + 1] for real t below the last real token,
-100 elsewhere. Reverse-causal labels are a right-to-left LM's: label[t] =
input_ids[t - 1] for real t above position 0, -100 elsewhere (position 0 and
the padding).

Self-checks run before writing:
  * torch.autograd.gradcheck (float64) of the total loss with respect to a
    few whole parameters, the tied word embeddings among them;
  * central finite differences against autograd on a few entries of EVERY
    parameter;
  * causal: outputs (hidden states, prediction logits) at positions <= t do
    not change when tokens after t change, for several t; reverse_causal, the
    mirror: outputs at positions >= t do not change when tokens before t
    change; bidirectional: they do change (so the check can fail), and for
    all: changing padding tokens leaves every real position unchanged;
  * the written file reads back (with safetensors_io) bit-identical.
"""

import argparse
import json
import math
import os
import sys

import torch
from torch import nn
from torch.nn import functional as F

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import safetensors_io  # noqa: E402

IGNORE_LABEL = -100
MASK_VALUE = -10000.0

BATCH = 2
SEQ_LEN = 29
REAL_TOKENS = (29, 21)       # sequence 1 is padded after 21 tokens
SEGMENT_B_START = (13, 9)    # first position of token type 1
MASKED_PER_SEQUENCE = 5
# One fixture per attention mode, each with its own seed.
SEEDS = {"bidirectional": 1234, "causal": 1235, "reverse_causal": 1236}


def make_config(attention_mode):
    return {
        "architectures": ["BertForPreTraining"],
        "model_type": "bert",
        "vocab_size": 101,
        "hidden_size": 32,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "intermediate_size": 64,
        "max_position_embeddings": 40,
        "type_vocab_size": 2,
        "layer_norm_eps": 1e-12,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.0,
        "attention_probs_dropout_prob": 0.0,
        "initializer_range": 0.2,
        "attention_mode": attention_mode,
    }


# ----------------------------------------------------------------------------
# The model. Attribute names are HF's so that parameter names are too.


class BertEmbeddings(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.word_embeddings = nn.Embedding(c["vocab_size"], c["hidden_size"])
        self.position_embeddings = nn.Embedding(c["max_position_embeddings"],
                                                c["hidden_size"])
        self.token_type_embeddings = nn.Embedding(c["type_vocab_size"],
                                                  c["hidden_size"])
        self.LayerNorm = nn.LayerNorm(c["hidden_size"], eps=c["layer_norm_eps"])

    def forward(self, input_ids, token_type_ids):
        seq_len = input_ids.shape[1]
        positions = torch.arange(seq_len, device=input_ids.device)
        x = (self.word_embeddings(input_ids) +
             self.position_embeddings(positions)[None, :, :] +
             self.token_type_embeddings(token_type_ids))
        return self.LayerNorm(x)


class BertSelfAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        hidden = c["hidden_size"]
        self.heads = c["num_attention_heads"]
        self.head_dim = hidden // self.heads
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)

    def _split(self, x):  # (B, T, H) -> (B, heads, T, d)
        b, t, _ = x.shape
        return x.view(b, t, self.heads, self.head_dim).permute(0, 2, 1, 3)

    def forward(self, x, additive_mask):
        q = self._split(self.query(x))
        k = self._split(self.key(x))
        v = self._split(self.value(x))
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.head_dim)
        probs = torch.softmax(scores + additive_mask, dim=-1)
        context = probs @ v                         # (B, heads, T, d)
        b, _, t, _ = context.shape
        return context.permute(0, 2, 1, 3).reshape(b, t, -1)


class BertSelfOutput(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c["hidden_size"], c["hidden_size"])
        self.LayerNorm = nn.LayerNorm(c["hidden_size"], eps=c["layer_norm_eps"])

    def forward(self, context, residual):
        return self.LayerNorm(residual + self.dense(context))


class BertAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.self = BertSelfAttention(c)
        self.output = BertSelfOutput(c)

    def forward(self, x, additive_mask):
        return self.output(self.self(x, additive_mask), x)


class BertIntermediate(nn.Module):
    def __init__(self, c):
        super().__init__()
        assert c["hidden_act"] == "gelu"
        self.dense = nn.Linear(c["hidden_size"], c["intermediate_size"])

    def forward(self, h):
        return F.gelu(self.dense(h))  # exact erf form


class BertOutput(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c["intermediate_size"], c["hidden_size"])
        self.LayerNorm = nn.LayerNorm(c["hidden_size"], eps=c["layer_norm_eps"])

    def forward(self, intermediate, residual):
        return self.LayerNorm(residual + self.dense(intermediate))


class BertLayer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.attention = BertAttention(c)
        self.intermediate = BertIntermediate(c)
        self.output = BertOutput(c)

    def forward(self, x, additive_mask):
        h = self.attention(x, additive_mask)
        return self.output(self.intermediate(h), h)


class BertEncoder(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.layer = nn.ModuleList(
            [BertLayer(c) for _ in range(c["num_hidden_layers"])])

    def forward(self, x, additive_mask):
        for layer in self.layer:
            x = layer(x, additive_mask)
        return x


class BertPooler(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c["hidden_size"], c["hidden_size"])

    def forward(self, sequence_output):
        return torch.tanh(self.dense(sequence_output[:, 0]))


class BertModel(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.causal = c["attention_mode"] == "causal"
        self.reverse_causal = c["attention_mode"] == "reverse_causal"
        self.embeddings = BertEmbeddings(c)
        self.encoder = BertEncoder(c)
        self.pooler = BertPooler(c)

    def additive_mask(self, attention_mask, dtype):
        """(B, 1, T, T): MASK_VALUE where key j is padding or (causal) j > i
        or (reverse_causal) j < i, added once even when two hold; 0
        elsewhere."""
        seq_len = attention_mask.shape[1]
        masked = (attention_mask == 0)[:, None, None, :].expand(
            -1, 1, seq_len, -1)
        i = torch.arange(seq_len)[:, None]
        j = torch.arange(seq_len)[None, :]
        if self.causal:
            masked = masked | (j > i)[None, None]
        if self.reverse_causal:
            masked = masked | (j < i)[None, None]
        zero = torch.zeros((), dtype=dtype)
        return torch.where(masked, zero + MASK_VALUE, zero)

    def forward(self, input_ids, token_type_ids, attention_mask):
        x = self.embeddings(input_ids, token_type_ids)
        mask = self.additive_mask(attention_mask, x.dtype)
        sequence_output = self.encoder(x, mask)
        return sequence_output, self.pooler(sequence_output)


class BertPredictionHeadTransform(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c["hidden_size"], c["hidden_size"])
        self.LayerNorm = nn.LayerNorm(c["hidden_size"], eps=c["layer_norm_eps"])

    def forward(self, x):
        return self.LayerNorm(F.gelu(self.dense(x)))


class BertLMPredictionHead(nn.Module):
    """The decoder weight is not a parameter of its own: it is the word
    embedding matrix, passed in, so autograd sums both uses' gradients."""

    def __init__(self, c):
        super().__init__()
        self.transform = BertPredictionHeadTransform(c)
        self.bias = nn.Parameter(torch.zeros(c["vocab_size"]))

    def forward(self, sequence_output, word_embeddings):
        return self.transform(sequence_output) @ word_embeddings.t() + self.bias


class BertPreTrainingHeads(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.predictions = BertLMPredictionHead(c)
        self.seq_relationship = nn.Linear(c["hidden_size"], 2)


def cross_entropy(logits, labels):
    """Mean over rows whose label != IGNORE_LABEL of -log softmax[label]."""
    keep = labels != IGNORE_LABEL
    log_probs = torch.log_softmax(logits[keep], dim=-1)
    picked = log_probs.gather(1, labels[keep][:, None])[:, 0]
    return -picked.sum() / keep.sum()


class BertForPreTraining(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.bert = BertModel(c)
        self.cls = BertPreTrainingHeads(c)

    def forward(self, input_ids, token_type_ids, attention_mask,
                masked_lm_labels, next_sentence_label):
        sequence_output, pooled = self.bert(input_ids, token_type_ids,
                                            attention_mask)
        prediction_logits = self.cls.predictions(
            sequence_output, self.bert.embeddings.word_embeddings.weight)
        seq_relationship_logits = self.cls.seq_relationship(pooled)
        vocab = prediction_logits.shape[-1]
        masked_lm_loss = cross_entropy(prediction_logits.reshape(-1, vocab),
                                       masked_lm_labels.reshape(-1))
        next_sentence_loss = cross_entropy(seq_relationship_logits,
                                           next_sentence_label)
        return {
            "prediction_logits": prediction_logits,
            "seq_relationship_logits": seq_relationship_logits,
            "loss": masked_lm_loss + next_sentence_loss,
            "masked_lm_loss": masked_lm_loss,
            "next_sentence_loss": next_sentence_loss,
            "last_hidden_state": sequence_output,
            "pooled_output": pooled,
        }


# ----------------------------------------------------------------------------
# Parameters and inputs.


def initialize(model, config):
    """Draws every parameter (in named_parameters order) from the global RNG,
    rounds it to float32, and loads it into the float64 model. Returns the
    float32 tensors by HF name."""
    std = config["initializer_range"]  # 0.2 for the fixtures, not 0.02
    params = {}
    with torch.no_grad():
        for name, p in model.named_parameters():
            noise = torch.randn(p.shape, dtype=torch.float64)
            if "LayerNorm.weight" in name:
                value = 1.0 + 0.1 * noise
            elif "LayerNorm.bias" in name or name.endswith("bias"):
                value = 0.1 * noise
            else:  # Linear weights and embedding tables
                value = std * noise
            params[name] = value.to(torch.float32)
            p.copy_(params[name].to(torch.float64))
    return params


def make_inputs(config):
    vocab = config["vocab_size"]
    mode = config["attention_mode"]
    input_ids = torch.randint(1, vocab, (BATCH, SEQ_LEN), dtype=torch.int64)
    token_type_ids = torch.zeros(BATCH, SEQ_LEN, dtype=torch.int64)
    attention_mask = torch.zeros(BATCH, SEQ_LEN, dtype=torch.int64)
    labels = torch.full((BATCH, SEQ_LEN), IGNORE_LABEL, dtype=torch.int64)
    for b in range(BATCH):
        real = REAL_TOKENS[b]
        attention_mask[b, :real] = 1
        token_type_ids[b, SEGMENT_B_START[b]:real] = 1
        if mode == "causal":
            labels[b, :real - 1] = input_ids[b, 1:real]
        elif mode == "reverse_causal":
            labels[b, 1:real] = input_ids[b, :real - 1]
        else:
            positions = 1 + torch.randperm(real - 1)[:MASKED_PER_SEQUENCE]
            labels[b, positions] = torch.randint(
                0, vocab, (MASKED_PER_SEQUENCE,), dtype=torch.int64)
    return {
        "input_ids": input_ids,
        "token_type_ids": token_type_ids,
        "attention_mask": attention_mask,
        "masked_lm_labels": labels,
        "next_sentence_label": torch.tensor([0, 1], dtype=torch.int64),
    }


def run(model, inputs):
    return model(inputs["input_ids"], inputs["token_type_ids"],
                 inputs["attention_mask"], inputs["masked_lm_labels"],
                 inputs["next_sentence_label"])


def gradients(model, loss):
    """{HF name: d loss / d parameter}; zeros for parameters loss ignores
    (the pooler and seq_relationship, for masked_lm_loss alone)."""
    params = list(model.named_parameters())
    grads = torch.autograd.grad(loss, [p for _, p in params],
                                allow_unused=True)
    return {name: torch.zeros_like(p) if g is None else g
            for (name, p), g in zip(params, grads)}


# ----------------------------------------------------------------------------
# Self-checks.


def check_gradcheck(model, inputs):
    from torch.nn.utils.stateless import functional_call
    names = [
        "bert.embeddings.word_embeddings.weight",  # tied: lookup + decoder
        "bert.embeddings.LayerNorm.weight",
        "bert.encoder.layer.0.attention.self.query.weight",
        "bert.encoder.layer.1.output.dense.bias",
        "cls.predictions.transform.LayerNorm.bias",
        "cls.seq_relationship.weight",
    ]
    params = dict(model.named_parameters())
    args = (inputs["input_ids"], inputs["token_type_ids"],
            inputs["attention_mask"], inputs["masked_lm_labels"],
            inputs["next_sentence_label"])
    for name in names:
        def loss_of(w, name=name):
            return functional_call(model, {name: w}, args)["loss"]
        w = params[name].detach().clone().requires_grad_(True)
        ok = torch.autograd.gradcheck(loss_of, (w,), eps=1e-6, atol=1e-7,
                                      rtol=1e-5)
        assert ok, name
        print("  gradcheck ok: %s %s" % (name, list(w.shape)))


def check_finite_differences(model, inputs, grads, entries=3, eps=1e-6):
    """Central differences on `entries` entries of every parameter."""
    worst = 0.0
    gen = torch.Generator().manual_seed(99)
    with torch.no_grad():
        for name, p in model.named_parameters():
            flat = p.view(-1)
            g = grads[name].reshape(-1)
            # The largest-gradient entry plus random ones.
            picks = [int(g.abs().argmax())] + torch.randint(
                0, flat.numel(), (entries - 1,), generator=gen).tolist()
            for index in picks:
                saved = flat[index].item()
                flat[index] = saved + eps
                up = run(model, inputs)["loss"].item()
                flat[index] = saved - eps
                down = run(model, inputs)["loss"].item()
                flat[index] = saved
                numeric = (up - down) / (2 * eps)
                error = abs(numeric - g[index].item())
                assert error <= 1e-6 + 1e-5 * abs(numeric), (
                    name, index, numeric, g[index].item())
                worst = max(worst, error)
    print("  finite differences ok: %d entries of each of %d parameters, "
          "max |autograd - numeric| = %.2e" %
          (entries, len(grads), worst))


def perturbed(inputs, b, positions, vocab, seed):
    gen = torch.Generator().manual_seed(seed)
    changed = {k: v.clone() for k, v in inputs.items()}
    ids = changed["input_ids"]
    for t in positions:
        # Another id in [1, vocab): shift by 1 .. vocab - 2 modulo vocab - 1.
        shift = 1 + torch.randint(0, vocab - 2, (), generator=gen)
        ids[b, t] = 1 + (ids[b, t] - 1 + shift) % (vocab - 1)
        # Also flip the token type of later tokens.
        changed["token_type_ids"][b, t] = 1 - changed["token_type_ids"][b, t]
    return changed


def max_diff(a, b):
    return (a - b).abs().max().item()


def check_causality(model, inputs, config, mode):
    vocab = config["vocab_size"]
    with torch.no_grad():
        base = run(model, inputs)
        # Padding positions never influence real ones.
        b = 1
        real = REAL_TOKENS[b]
        out = run(model, perturbed(inputs, b, range(real, SEQ_LEN), vocab, 7))
        d = max(max_diff(out[k][b, :real], base[k][b, :real])
                for k in ("last_hidden_state", "prediction_logits"))
        assert d == 0.0, d
        print("  padding isolation ok: changing sequence 1's %d padding "
              "tokens moves its real positions by %.1e" % (SEQ_LEN - real, d))
        if mode == "reverse_causal":
            check_reverse_causality(model, inputs, base, vocab)
            return
        causal = mode == "causal"
        # Future tokens: no influence when causal, some when bidirectional.
        for b in range(BATCH):
            real = REAL_TOKENS[b]
            for t in (0, 4, 12, real - 2):
                out = run(model, perturbed(inputs, b, range(t + 1, real),
                                           vocab, 100 * b + t))
                past = max(max_diff(out[k][b, :t + 1], base[k][b, :t + 1])
                           for k in ("last_hidden_state", "prediction_logits"))
                future = max_diff(out["last_hidden_state"][b, t + 1:real],
                                  base["last_hidden_state"][b, t + 1:real])
                assert future > 1e-3, (b, t, future)
                if causal:
                    assert past == 0.0, (b, t, past)
                else:
                    assert past > 1e-3, (b, t, past)
                print("  %s ok: seq %d, tokens after t=%2d changed: "
                      "positions <= t move by %.2e, later ones by %.2e" %
                      ("causality" if causal else "bidirectional sanity",
                       b, t, past, future))


def check_reverse_causality(model, inputs, base, vocab):
    """The mirror of the causal check: tokens before t do not move outputs
    at positions >= t, and do move the earlier ones."""
    for b in range(BATCH):
        real = REAL_TOKENS[b]
        for t in (1, 5, 12, real - 1):
            out = run(model, perturbed(inputs, b, range(0, t), vocab,
                                       200 * b + t))
            later = max(max_diff(out[k][b, t:real], base[k][b, t:real])
                        for k in ("last_hidden_state", "prediction_logits"))
            earlier = max_diff(out["last_hidden_state"][b, :t],
                               base["last_hidden_state"][b, :t])
            assert earlier > 1e-3, (b, t, earlier)
            assert later == 0.0, (b, t, later)
            print("  reverse causality ok: seq %d, tokens before t=%2d "
                  "changed: positions >= t move by %.2e, earlier ones by "
                  "%.2e" % (b, t, later, earlier))


# ----------------------------------------------------------------------------


def build_fixture(attention_mode, seed):
    config = make_config(attention_mode)
    language_model = attention_mode in ("causal", "reverse_causal")
    torch.manual_seed(seed)
    model = BertForPreTraining(config).to(torch.float64)
    model.eval()
    params = initialize(model, config)
    inputs = make_inputs(config)

    print("[%s] seed %d, %d parameter tensors, %d values" %
          (attention_mode, seed, len(params),
           sum(p.numel() for p in params.values())))
    out = run(model, inputs)
    grads = gradients(model, out["loss"])
    print("  loss %.10f = masked_lm_loss %.10f + next_sentence_loss %.10f "
          "(%d labelled positions)" %
          (out["loss"].item(), out["masked_lm_loss"].item(),
           out["next_sentence_loss"].item(),
           int((inputs["masked_lm_labels"] != IGNORE_LABEL).sum())))

    check_gradcheck(model, inputs)
    check_finite_differences(model, inputs, grads)
    check_causality(model, inputs, config, attention_mode)

    tensors = dict(params)
    for k, v in inputs.items():
        tensors["input." + k] = v
    for k, v in out.items():
        tensors["output." + k] = v.detach().to(torch.float32)
    for k, v in grads.items():
        tensors["grad." + k] = v.to(torch.float32)
    if language_model:
        mlm_grads = gradients(model, run(model, inputs)["masked_lm_loss"])
        for k, v in mlm_grads.items():
            tensors["grad_masked_lm." + k] = v.to(torch.float32)
    metadata = {
        "config": json.dumps(config, indent=2) + "\n",
        "generator": "tools/reference/bert_reference.py (torch %s)" %
                     torch.__version__,
        "seed": str(seed),
        "description": (
            "HF BertForPreTraining (%s attention) computed in float64 from "
            "the stored float32 parameters; outputs and gradients of "
            "loss = masked_lm_loss + next_sentence_loss rounded to float32. "
            "Initialization std 0.2 (not 0.02), random biases and LayerNorm "
            "parameters." % attention_mode),
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
    parser.add_argument("--modes", default=",".join(SEEDS),
                        help="comma-separated attention modes to write, of "
                        "%s" % ", ".join(SEEDS))
    args = parser.parse_args()
    modes = args.modes.split(",")
    unknown = [m for m in modes if m not in SEEDS]
    if unknown:
        parser.error("unknown mode(s) %s; use %s" %
                     (", ".join(unknown), ", ".join(SEEDS)))
    torch.set_num_threads(1)  # bit-reproducible reductions
    os.makedirs(args.out_dir, exist_ok=True)
    for mode in modes:
        seed = SEEDS[mode]
        tensors, metadata = build_fixture(mode, seed)
        path = os.path.join(args.out_dir,
                            "bert_reference_%s.safetensors" % mode)
        write_and_verify(tensors, metadata, path)


if __name__ == "__main__":
    main()
