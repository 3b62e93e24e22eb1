#!/usr/bin/python3
"""Reference values for eval/metrics_test.cc, computed independently of the
C++ code with numpy only (Debian's python3-numpy; scipy and scikit-learn are
not installed here).

Definitions, as HF glue_compute_metrics uses them:
  accuracy   mean(gold == pred)
  f1         sklearn f1_score(gold, pred), pos_label=1: 2 P R / (P + R)
  matthews   sklearn matthews_corrcoef from the confusion matrix C:
             (c s - t.p) / sqrt((s^2 - p.p) (s^2 - t.t)), t/p = row/col sums
  pearson    numpy.corrcoef (= scipy.stats.pearsonr)
  spearman   Pearson of average ranks (= scipy.stats.spearmanr); the rank of
             v is #(< v) + (#(== v) + 1) / 2, a different route from the
             C++ sort-and-group.

Run: python3 tools/reference/glue_metrics_reference.py
"""
import numpy as np

GOLD = [1, 0, 1, 1, 0, 1, 0, 0, 1, 1, 1, 0, 1]
PRED = [1, 0, 0, 1, 1, 1, 0, 1, 1, 0, 1, 0, 1]
GOLD3 = [0, 1, 2, 2, 1, 0, 2, 1, 0, 2]
PRED3 = [0, 2, 2, 1, 1, 0, 2, 0, 0, 2]
X = [4.2, 3.0, 0.5, 5.0, 2.25, 3.0, 1.0, 4.2, 3.0, 0.0, 2.8]
Y = [3.9, 2.5, 1.1, 4.8, 2.0, 3.3, 0.4, 4.4, 2.5, 0.2, 3.6]


def accuracy(gold, pred):
    return float(np.mean(np.array(gold) == np.array(pred)))


def f1(gold, pred):
    gold, pred = np.array(gold), np.array(pred)
    tp = np.sum((gold == 1) & (pred == 1))
    precision = tp / np.sum(pred == 1)
    recall = tp / np.sum(gold == 1)
    return float(2 * precision * recall / (precision + recall))


def matthews(gold, pred):
    classes = sorted(set(gold) | set(pred))
    index = {c: i for i, c in enumerate(classes)}
    confusion = np.zeros((len(classes), len(classes)))
    for g, p in zip(gold, pred):
        confusion[index[g], index[p]] += 1
    t = confusion.sum(axis=1)
    p = confusion.sum(axis=0)
    c = np.trace(confusion)
    s = confusion.sum()
    return float((c * s - t @ p) / np.sqrt((s * s - p @ p) * (s * s - t @ t)))


def pearson(x, y):
    return float(np.corrcoef(np.array(x), np.array(y))[0, 1])


def ranks(values):
    v = np.array(values)
    return [np.sum(v < a) + (np.sum(v == a) + 1) / 2.0 for a in v]


def spearman(x, y):
    return pearson(ranks(x), ranks(y))


if __name__ == "__main__":
    print("accuracy", repr(accuracy(GOLD, PRED)))
    print("f1", repr(f1(GOLD, PRED)))
    print("matthews", repr(matthews(GOLD, PRED)))
    print("matthews3", repr(matthews(GOLD3, PRED3)))
    print("pearson", repr(pearson(X, Y)))
    print("spearman", repr(spearman(X, Y)))
    print("ranks_x", [float(r) for r in ranks(X)])
