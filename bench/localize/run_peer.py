"""Runs one peer method over every case of one generated set and writes one JSON line per case:
{"case", "predicted": ["a=a1&b=b2", ...], "seconds", "status": "ok" | "timeout" | "error", "error"?}.

  python3 bench/localize/run_peer.py --method riskloc --set-dir bench/.tmp/localize/S --out S-riskloc.jsonl
      [--derived] [--limit-seconds 60] [--cases 20]

Reading a case's files is not timed; the method's call and the conversion of its answer to
RiskLoc's element strings are, as RiskLoc's run.py times them. A case that passes the time
limit is recorded as a timeout with no prediction. Methods:

  riskloc              RiskLoc (shaido987/riskloc, the author's code), its run.py defaults
  squeeze              Squeeze (NetManAIOps/Squeeze, the authors' code as published), as their
                       run_algorithm.py calls it
  robustspot           RobustSpot (robustspotproject/RobustSpot, the authors' code, main.py's
                       pipeline) on ratio sets only: its contribution ability is defined on a
                       numerator and a denominator
  rl-<name>            RiskLoc's re-implementations, run as its run.py runs them: rl-squeeze
                       (Squeeze with the two known issues of the authors' README fixed),
                       rl-autoroot, rl-hotspot, rl-adtributor, rl-r_adtributor, rl-robustspot
"""
import argparse
import contextlib
import json
import os
import sys
import tempfile
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peers import CaseTimeout, cases, numpy_aliases, run_limited, use_peer  # noqa: E402

RISKLOC_ALGORITHMS = {'riskloc': 'riskloc', 'rl-squeeze': 'squeeze', 'rl-autoroot': 'autoroot', 'rl-hotspot': 'hotspot',
                      'rl-adtributor': 'adtributor', 'rl-r_adtributor': 'r_adtributor', 'rl-robustspot': 'robustspot'}


def riskloc_method(algorithm):
    """A method run as RiskLoc's run.py runs it: read_dataframe, run_method with the CLI's defaults, root_cause_postprocessing."""
    use_peer('riskloc')
    numpy_aliases()
    from utils.argument_parser import get_input_arguments
    from utils.evaluation import root_cause_postprocessing
    from utils.run_utils import read_dataframe, run_method

    argv = sys.argv
    sys.argv = ['run.py', algorithm, '--data-root', 'data', '--run-path', 'data/case.csv']
    try:
        algorithm_args = get_input_arguments()[3]
    finally:
        sys.argv = argv

    def load(set_dir, case, derived):
        return read_dataframe(set_dir, case, derived, False)

    def run(loaded, derived):
        df, attributes, df_a, df_b = loaded
        root_causes = run_method(df, [df_a, df_b], attributes, algorithm, algorithm_args, derived, False)
        return [str(rc) for rc in root_cause_postprocessing(root_causes, algorithm)]

    return load, run


def squeeze_method():
    """Squeeze as the authors' run_algorithm.py runs a case (executor / executor_derived), without its report and figures."""
    use_peer('Squeeze')
    numpy_aliases()
    from functools import reduce

    import numpy as np
    import pandas as pd
    from loguru import logger
    from squeeze import Squeeze, SqueezeOption
    from utility import AC

    logger.remove()  # their runner logs every step at DEBUG
    figures = tempfile.mkdtemp(prefix='squeeze-')

    def read(path):
        # run_algorithm.py reads every column as text (attribute values stay strings), then the measures as floats.
        df = pd.read_csv(path, dtype=str)
        df['real'] = df['real'].astype(float)
        df['predict'] = df['predict'].astype(float)
        return df

    def load(set_dir, case, derived):
        if not derived:
            return [read(os.path.join(set_dir, f'{case}.csv'))]
        dfa, dfb = read(os.path.join(set_dir, f'{case}.a.csv')), read(os.path.join(set_dir, f'{case}.b.csv'))
        zero = (dfa.real == 0) & (dfa.predict == 0) & (dfb.real == 0) & (dfb.predict == 0)
        return [dfa[~zero], dfb[~zero]]

    def run(data_list, derived):
        if derived:
            divide = lambda x, y: np.divide(x, y, out=np.zeros_like(x), where=y != 0)  # noqa: E731
            model = Squeeze(data_list=data_list, op=divide,
                            option=SqueezeOption(debug=False, fig_save_path=f'{figures}/{{suffix}}.pdf', enable_filter=True))
        else:
            model = Squeeze(data_list=data_list, op=lambda x: x,
                            option=SqueezeOption(debug=False, fig_save_path=f'{figures}/{{suffix}}.pdf'))
        model.run()
        try:
            root_cause = AC.batch_to_string(frozenset(reduce(lambda x, y: x.union(y), model.root_cause, set())))
        except IndexError:
            root_cause = ''
        return [rc for rc in root_cause.split(';') if rc]

    return load, run


def robustspot_method():
    """RobustSpot's main.main() on one case: its own forecaster (predict.get_predict_df, a mean of the
    4 minutes before) is the one part replaced, by a frame holding the generated forecast in the
    columns it produces. value/cnt is their ratio (stalling viewers / viewers, which rises in an
    incident): here failures (denominator − numerator) / denominator, as RiskLoc's adaptation does."""
    use_peer('RobustSpot')
    numpy_aliases()
    import config.global_data as g_data
    import main as rs_main
    import pandas as pd
    import predict

    workdir = tempfile.mkdtemp(prefix='robustspot-')
    os.makedirs(os.path.join(workdir, 'result'), exist_ok=True)  # main() writes result/result.csv

    def load(set_dir, case, derived):
        if not derived:
            raise ValueError('RobustSpot needs a ratio (numerator and denominator); this set has one additive measure')
        a = pd.read_csv(os.path.join(set_dir, f'{case}.a.csv'), dtype=str)
        b = pd.read_csv(os.path.join(set_dir, f'{case}.b.csv'), dtype=str)
        attributes = [c for c in a.columns if c not in ('real', 'predict')]
        df = pd.merge(a, b, on=attributes, suffixes=('_a', '_b'))
        for c in ('real_a', 'predict_a', 'real_b', 'predict_b'):
            df[c] = df[c].astype(float)
        # Their data has a row only where there were viewers in the minute or the ones before.
        df = df[(df.real_b > 0) | (df.predict_b > 0)].reset_index(drop=True)
        frame = df[attributes].copy()
        frame['value_real'] = df.real_b - df.real_a
        frame['cnt_real'] = df.real_b
        frame['k_real'] = frame.value_real / frame.cnt_real
        frame['value_predict'] = df.predict_b - df.predict_a
        frame['cnt_predict'] = df.predict_b
        frame['k_predict'] = frame.value_predict / frame.cnt_predict
        return case, attributes, frame.fillna(0)

    def run(loaded, derived):
        case, attributes, frame = loaded
        config = os.path.join(workdir, 'anomaly.yaml')
        with open(config, 'w') as f:
            f.write(f'- data: "{case}"\n  timestamp: 0\n')

        def get_predict_df(anomaly_index):
            g_data.anomaly_list[anomaly_index]['header'] = attributes
            return frame.copy()

        predict.get_predict_df = get_predict_df
        g_data.anomaly_config = config
        g_data.before_df_list, g_data.after_df_list = [None] * 7, [None] * 7
        g_data.expand_df_list, g_data.mining_root_cause = [None] * 7, [None] * 7
        g_data.final_res = pd.DataFrame(columns=['predict_cause'])
        cwd = os.getcwd()
        os.chdir(workdir)
        try:
            with contextlib.redirect_stdout(sys.stderr):
                rs_main.main()
        finally:
            os.chdir(cwd)
        causes = g_data.final_res.loc[case, 'predict_cause']
        # As RiskLoc's root_cause_postprocessing reads RobustSpot's answer: every element of every returned cause.
        return ['&'.join(f'{k}={v}' for k, v in element) for cause in causes for element in cause]

    return load, run


def method(name):
    if name in RISKLOC_ALGORITHMS:
        return riskloc_method(RISKLOC_ALGORITHMS[name])
    if name == 'squeeze':
        return squeeze_method()
    if name == 'robustspot':
        return robustspot_method()
    raise SystemExit(f'unknown method {name}')


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--method', required=True)
    parser.add_argument('--set-dir', required=True)
    parser.add_argument('--out', required=True)
    parser.add_argument('--derived', action='store_true', help='cases are {id}.a.csv (numerator) and {id}.b.csv (denominator)')
    parser.add_argument('--limit-seconds', type=float, default=60.0, help='time limit per case')
    parser.add_argument('--cases', type=int, default=None, help='only the first N cases')
    args = parser.parse_args()

    warnings.filterwarnings('ignore')
    load, run = method(args.method)
    ids = cases(args.set_dir)[:args.cases]
    with open(args.out, 'w') as out:
        for case in ids:
            record = {'case': case, 'predicted': [], 'seconds': None, 'status': 'ok'}
            try:
                loaded = load(args.set_dir, case, args.derived)
                started = time.perf_counter()
                try:
                    record['predicted'] = run_limited(args.limit_seconds, lambda: run(loaded, args.derived))
                finally:
                    record['seconds'] = time.perf_counter() - started
            except CaseTimeout:
                record['status'] = 'timeout'
            except Exception as error:  # a peer failing on one case is a result, not the end of the run
                record['status'] = 'error'
                record['error'] = f'{type(error).__name__}: {error}'[:500]
            out.write(json.dumps(record) + '\n')
            out.flush()


if __name__ == '__main__':
    main()
