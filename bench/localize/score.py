"""Scores predictions as RiskLoc's evaluation does, with its own functions: each prediction goes
through root_cause_postprocessing (unique elements, each element's attributes in order), the truth
is injection_info.csv's `set` (get_label), and score_root_causes counts TP, FP and FN on the set
of root-cause elements. Reads the JSON lines of run_peer.py (or of bench/localize/ours.js) and
writes them back with "tp", "fp", "fn", "truth" and "exact" (the predicted set is the true set).

  python3 bench/localize/score.py --set-dir bench/.tmp/localize/S --predictions S-riskloc.jsonl
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peers import numpy_aliases, use_peer  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument('--set-dir', required=True)
parser.add_argument('--predictions', required=True, help='JSON lines, rewritten in place with the scores')
args = parser.parse_args()

use_peer('riskloc')
numpy_aliases()
from utils.evaluation import root_cause_postprocessing, score_root_causes  # noqa: E402
from utils.run_utils import get_label  # noqa: E402

with open(args.predictions) as f:
    records = [json.loads(line) for line in f if line.strip()]
for record in records:
    # The strings branch of root_cause_postprocessing (the one Squeeze's answers take).
    predicted = root_cause_postprocessing(list(record['predicted']), 'squeeze')
    tp, fp, fn, truth = score_root_causes(predicted, get_label(args.set_dir, record['case'], False))
    record.update(tp=int(tp), fp=int(fp), fn=int(fn), truth=[str(t) for t in truth],
                  exact=bool(fp == 0 and fn == 0))
with open(args.predictions, 'w') as f:
    f.writelines(json.dumps(record) + '\n' for record in records)
