"""Where the fetched peers live, how to reach their code, and what the adapters share.

The peers are other people's repositories, fetched outside this one (see README, Benchmarks:
`npm run bench:localize`). Nothing of theirs is copied here: the adapters put a peer's folder on
sys.path and call its functions. BENCH_LOCALIZE_PEERS names the folder that holds them
(default /work/peers).
"""
import os
import signal
import sys

PEERS = os.environ.get('BENCH_LOCALIZE_PEERS', '/work/peers')

# Each peer: the file that proves it is there, where it comes from, and the commit the results in
# bench/RESULTS.md were made with (each repository's newest when fetched).
REPOS = {
    'riskloc': ('generate_dataset.py', 'shaido987/riskloc', '08cd777c801f'),
    'Squeeze': ('squeeze/squeeze.py', 'NetManAIOps/Squeeze', '236bb0f3e0b6'),
    'RobustSpot': ('mining.py', 'robustspotproject/RobustSpot', '1ca0a102d71b'),
    # Squeeze's requirements.txt pins kneed==0.4.1; RobustSpot's calls work with it too.
    'kneed': ('kneed/knee_locator.py', 'arvkevi/kneed', 'v0.4.1'),
}

DEBIAN_PACKAGES = 'python3-numpy python3-pandas python3-scipy python3-sklearn python3-yaml python3-loguru python3-bidict python3-matplotlib python3-seaborn'


def fetch_hint(missing):
    lines = [f'bench:localize: peer code missing under {PEERS}: {", ".join(missing)}.',
             'Fetch the peers (outside this repository) and install their Debian packages:',
             f'  mkdir -p {PEERS} && cd {PEERS}']
    for name, (_, repo, ref) in REPOS.items():
        lines.append(f'  git clone https://github.com/{repo}.git {name} && git -C {name} checkout -q {ref}')
    lines.append(f'  sudo apt-get install -y {DEBIAN_PACKAGES}')
    lines.append('or point BENCH_LOCALIZE_PEERS at the folder that holds them.')
    return '\n'.join(lines)


def missing_peers():
    return [name for name, (probe, _, _) in REPOS.items() if not os.path.isfile(os.path.join(PEERS, name, probe))]


def require_peers():
    missing = missing_peers()
    if missing:
        sys.stderr.write(fetch_hint(missing) + '\n')
        sys.exit(3)


def use_peer(*names):
    """Puts the peers' folders first on sys.path (kneed always: both Squeeze and RobustSpot import it)."""
    require_peers()
    for name in ('kneed', *names):
        path = os.path.join(PEERS, name)
        if path not in sys.path:
            sys.path.insert(0, path)


def numpy_aliases():
    """The peers were written for numpy < 1.24, which still had np.bool, np.int, ... (aliases of the
    builtins, removed in 1.24; Debian 12 ships 1.24). Put the aliases back instead of editing their code."""
    import numpy as np
    for alias, builtin in (('bool', bool), ('int', int), ('float', float), ('object', object), ('str', str)):
        if alias not in np.__dict__:
            setattr(np, alias, builtin)


class CaseTimeout(Exception):
    pass


def _on_alarm(signum, frame):
    # Fire again in a second: some peer code wraps calls in a bare `except:` that would swallow this one.
    signal.setitimer(signal.ITIMER_REAL, 1.0)
    raise CaseTimeout()


def run_limited(seconds, fn):
    """Runs fn() and raises CaseTimeout once `seconds` of wall time have passed (checked between
    Python bytecodes, so a long numpy call finishes first)."""
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def cases(set_dir):
    """The set's case ids in injection_info.csv order (RiskLoc's and Squeeze's label file)."""
    import csv
    with open(os.path.join(set_dir, 'injection_info.csv'), newline='') as f:
        return [row['timestamp'] for row in csv.DictReader(f)]
