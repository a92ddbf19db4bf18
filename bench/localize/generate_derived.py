"""Generates a ratio set in the layout of Squeeze's dataset D: per case {id}.a.csv (the numerator,
successes) and {id}.b.csv (the denominator, attempts), each with the attribute columns, `real`
and `predict`, and injection_info.csv whose `set` is the root cause defined on the ratio
(success rate = a / b).

  python3 bench/localize/generate_derived.py --num 20 --seed 124 --data-root bench/.tmp/localize --dataset-name D

Where the anomalies go is RiskLoc's generate_dataset.py, imported from the fetched copy and run
with its own defaults (the S setting: 1-3 anomalies (--num-anomaly), each 1-3 elements in one
cuboid of any layer, no two overlapping, labels in its format); only the measures differ:
- attempts: each leaf's expected volume is RiskLoc's Weibull draw (alpha 0.5-1) x --volume, a
  share of the leaves (its zero rate, 0-25 %) at zero; the real count is a Poisson draw on it,
  the forecast the volume with a relative error of --denominator-noise (drawn per case);
- successes: each leaf has its own success probability (--success-rate range); the forecast is
  forecast attempts x that probability, the real count a binomial draw on the real attempts, so a
  small leaf's ratio is as noisy as real counts are;
- an anomaly lowers the success probability of its leaves by a factor 1 - r, r drawn per leaf
  from N(severity, deviation) (severity in --ratio-severity, deviation RiskLoc's 0-0.1), clipped
  to [0, 1]. Attempts are not touched: the cause is in the ratio alone.
A case whose anomalies RiskLoc's placement cannot fit (it then recurses without end, which
happens with few values per attribute) is drawn again.
"""
import argparse
import itertools
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peers import PEERS, require_peers  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument('--num', type=int, required=True)
parser.add_argument('--seed', type=int, default=124)
parser.add_argument('--data-root', required=True)
parser.add_argument('--dataset-name', default='D')
parser.add_argument('--dims', type=int, nargs='+', default=[10, 12, 10, 8])
parser.add_argument('--volume', type=float, default=1000.0, help='scale of the expected attempts per leaf')
parser.add_argument('--denominator-noise', type=float, nargs=2, default=[0.0, 0.1])
parser.add_argument('--success-rate', type=float, nargs=2, default=[0.9, 0.999])
parser.add_argument('--ratio-severity', type=float, nargs=2, default=[0.05, 0.5])
parser.add_argument('--num-anomaly', type=int, nargs=2, default=[1, 3], help="passed to RiskLoc's generator (its default)")
args = parser.parse_args()

require_peers()
sys.path.insert(0, os.path.join(PEERS, 'riskloc'))
# generate_dataset.py parses its arguments when imported; give it the ones that place anomalies.
# Its noise level is 0 here so that it does not add to the severity (the ratio's noise is the counts').
sys.argv = ['generate_dataset.py', '--num', str(args.num), '--seed', str(args.seed), '--data-root', args.data_root,
            '--dataset-name', args.dataset_name, '--dims', *map(str, args.dims), '--noise-level', '0', '0',
            '--anomaly-severity', *map(str, args.ratio_severity), '--num-anomaly', *map(str, args.num_anomaly)]
import generate_dataset as riskloc_generator  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

rng = riskloc_generator.rng
dimensions = riskloc_generator.dimensions
save_path = os.path.join(args.data_root, args.dataset_name)


def generate_case():
    zero_rate, _, anomaly_properties = riskloc_generator.get_dataset_properties(dimensions)
    values = [[d + str(i) for i in range(1, n + 1)] for d, n in dimensions.items()]
    leaves = pd.DataFrame(list(itertools.product(*values)), columns=list(dimensions.keys()))
    n = len(leaves)

    alpha = rng.uniform(*riskloc_generator.weibull_alpha)
    volume = rng.weibull(alpha, n) * args.volume * (rng.uniform(size=n) > zero_rate)
    attempts_real = rng.poisson(volume).astype(float)
    noise = rng.uniform(*args.denominator_noise)
    attempts_predict = np.maximum(volume * (1 + rng.normal(0, noise, n)), 0.0)
    success = rng.uniform(*args.success_rate, n)

    leaves['real'] = attempts_real  # RiskLoc's placement refuses a lowest-layer anomaly on a leaf with no volume
    anomalies = riskloc_generator.get_anomaly_locations(leaves, dimensions, anomaly_properties)
    masks = riskloc_generator.get_anomaly_masks(leaves, anomalies)
    real_success = success.copy()
    for i, mask in enumerate(masks):
        p = anomaly_properties[i]
        r = rng.normal(p['severity'], p['deviation'], int(mask.sum()))
        real_success[mask] = success[mask] * np.clip(1 - r, 0, 1)

    successes_real = rng.binomial(attempts_real.astype(np.int64), real_success).astype(float)
    a = leaves[list(dimensions.keys())].copy()
    b = a.copy()
    a['real'], a['predict'] = successes_real, attempts_predict * success
    b['real'], b['predict'] = attempts_real, attempts_predict
    info = {'set': riskloc_generator.generate_labels(anomalies),
            'severity': ';'.join(str(round(anomaly_properties[i]['severity'], 2)) for i in range(len(masks))),
            'zero_rate': round(zero_rate, 2), 'denominator_noise': round(noise, 3)}
    return a, b, info


if __name__ == '__main__':
    used = set()
    info = {}
    for _ in range(args.num):
        name = riskloc_generator.generate_filename(6, used)
        used.add(name)
        for attempt in range(20):
            try:
                a, b, info[name] = generate_case()
                break
            except RecursionError:
                # RiskLoc's placement recurses until its anomalies fit without overlap; with few
                # values per attribute it can recurse without end. Draw the case again.
                print(f'case {name}: anomaly placement did not end, drawing the case again')
        else:
            raise SystemExit(f'case {name}: no placement of the anomalies after 20 draws; give the attributes more values')
        a.to_csv(os.path.join(save_path, f'{name}.a.csv'), index=False)
        b.to_csv(os.path.join(save_path, f'{name}.b.csv'), index=False)
    table = pd.DataFrame.from_dict(info, orient='index').rename_axis('timestamp').reset_index()
    table.to_csv(os.path.join(save_path, 'injection_info.csv'), index=False)
