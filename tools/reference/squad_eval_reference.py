#!/usr/bin/env python3
"""Independent reference for //eval:squad_eval (eval/squad_eval.h).

Implements the algorithm of the official SQuAD scripts, evaluate-v1.1.py and
evaluate-v2.0.py, as PAPER.md section 3 describes it (the scripts themselves
are not available offline). Python standard library only.

  python3 tools/reference/squad_eval_reference.py DATA PREDICTIONS [NA_PROBS]

prints the JSON the official script would print (v1.1: one line; v2.0:
indent=2). eval/squad_eval_test.cc and eval/squad_eval_main_test.sh hard-code
its output on the fixtures in eval/testdata/.
"""
import collections
import json
import re
import string
import sys

_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)
_PUNCTUATION = frozenset(string.punctuation)


def normalize(text):
  text = text.lower()
  text = "".join(ch for ch in text if ch not in _PUNCTUATION)
  text = _ARTICLES.sub(" ", text)
  return " ".join(text.split())


def tokens_of(text):
  return normalize(text).split() if text else []


def overlap_f1(pred_tokens, gold_tokens):
  same = sum((collections.Counter(pred_tokens) &
              collections.Counter(gold_tokens)).values())
  if same == 0:
    return 0
  precision = 1.0 * same / len(pred_tokens)
  recall = 1.0 * same / len(gold_tokens)
  return (2 * precision * recall) / (precision + recall)


def questions(dataset):
  for article in dataset["data"]:
    for paragraph in article["paragraphs"]:
      for qa in paragraph["qas"]:
        yield qa


def evaluate_v1(dataset, preds):
  exact = f1 = total = 0
  for qa in questions(dataset):
    total += 1
    if qa["id"] not in preds:
      continue
    pred = preds[qa["id"]]
    golds = [a["text"] for a in qa["answers"]]
    exact += max(normalize(pred) == normalize(g) for g in golds)
    f1 += max(overlap_f1(normalize(pred).split(), normalize(g).split())
              for g in golds)
  return {"exact_match": 100.0 * exact / total, "f1": 100.0 * f1 / total}


def v2_f1(gold, pred):
  gold_tokens, pred_tokens = tokens_of(gold), tokens_of(pred)
  if not gold_tokens or not pred_tokens:
    return int(gold_tokens == pred_tokens)
  return overlap_f1(pred_tokens, gold_tokens)


def best_threshold(preds, scores, na_probs, has_ans):
  score = best = sum(1 for q in has_ans if not has_ans[q])
  thresh = 0.0
  for qid in sorted(na_probs, key=lambda q: na_probs[q]):
    if qid not in scores:
      continue
    if has_ans[qid]:
      score += scores[qid]
    else:
      score += -1 if preds[qid] else 0
    if score > best:
      best, thresh = score, na_probs[qid]
  return 100.0 * best / len(scores), thresh


def evaluate_v2(dataset, preds, na_probs, na_prob_thresh=1.0):
  has_ans = collections.OrderedDict()
  exact_raw, f1_raw = collections.OrderedDict(), collections.OrderedDict()
  for qa in questions(dataset):
    has_ans[qa["id"]] = bool(qa["answers"])
    golds = [a["text"] for a in qa["answers"] if normalize(a["text"])] or [""]
    if qa["id"] not in preds:
      continue
    pred = preds[qa["id"]]
    exact_raw[qa["id"]] = max(int(normalize(g) == normalize(pred))
                              for g in golds)
    f1_raw[qa["id"]] = max(v2_f1(g, pred) for g in golds)
  probs = na_probs if na_probs is not None else {q: 0.0 for q in preds}

  def thresholded(raw):
    return collections.OrderedDict(
        (q, float(not has_ans[q]) if probs[q] > na_prob_thresh else s)
        for q, s in raw.items())

  exact_t, f1_t = thresholded(exact_raw), thresholded(f1_raw)

  def block(qids):
    return [100.0 * sum(exact_t[q] for q in qids) / len(qids),
            100.0 * sum(f1_t[q] for q in qids) / len(qids), len(qids)]

  out = collections.OrderedDict(zip(["exact", "f1", "total"],
                                    block(list(exact_t))))
  for name, want in (("HasAns", True), ("NoAns", False)):
    qids = [q for q, v in has_ans.items() if v == want]
    if qids:
      for key, value in zip(["exact", "f1", "total"], block(qids)):
        out[name + "_" + key] = value
  if na_probs is not None:
    out["best_exact"], out["best_exact_thresh"] = best_threshold(
        preds, exact_raw, na_probs, has_ans)
    out["best_f1"], out["best_f1_thresh"] = best_threshold(
        preds, f1_raw, na_probs, has_ans)
  return out


def main(argv):
  with open(argv[1]) as f:
    dataset = json.load(f)
  with open(argv[2]) as f:
    preds = json.load(f)
  na_probs = None
  if len(argv) > 3:
    with open(argv[3]) as f:
      na_probs = json.load(f)
  is_v2 = str(dataset.get("version", "")).startswith("v2") or any(
      "is_impossible" in qa for qa in questions(dataset))
  if is_v2:
    print(json.dumps(evaluate_v2(dataset, preds, na_probs), indent=2))
  else:
    print(json.dumps(evaluate_v1(dataset, preds)))


if __name__ == "__main__":
  main(sys.argv)
