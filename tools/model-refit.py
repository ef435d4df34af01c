"""Refits the execution-time model from `votecl calibrate --evaluate --json` output with a chosen
set of terms (a replica of lib/model.c's regressors and active-set fit) and scores it on the
held-out cases: compares the version-2 terms (a-j) with version 3's (a-m) on the same runs.

    python3 tools/model-refit.py cal.json

No third-party packages: it runs wherever the calibration ran."""
import json, math, sys

def at1(x): return x if x >= 1 else 1.0

def regressors(s):
    loc = s['location_based']; E = s['E']; eta = s['eta'] if loc else 1.0
    kept = eta * E; p = at1(s['P']); G = at1(s['G']); SM = at1(s['SM'])
    serial = s['serial']; passes = at1(s['passes'])
    f = math.ceil(G * passes * p / SM) / p
    fs = math.ceil(math.ceil(G * p / at1(s['work_group_size'])) / SM) / p if serial else 0.0
    gw = 0.0 if serial else 1.0
    st1 = 1.0 if loc else 0.0
    if s['variant'] == 'local' and s['copies'] <= 1: mw = 0.0
    else: mw = G * s['N'] * at1(s['copies'])
    if s['variant'] == 'local': per = at1(s['S_prime']) * math.ceil(s['N'] / passes)
    elif s['variant'] == 'private' and not serial: per = math.ceil(s['N'] / 2) * at1(s['work_group_size'])
    else: per = 0.0
    h = f * p * per
    groups = math.ceil(G * p / at1(s['work_group_size'])) if serial else G * passes * p
    wave = math.ceil(groups / (SM * at1(s['resident']))) / p
    foot = math.log2(1 + s['footprint'] / 65536.0) if s['footprint'] > 0 else 0.0
    return [st1 * E, st1 * kept, st1, gw * kept / at1(s['S_prime']) * f, gw * kept * f, 1.0, mw, h,
            kept * fs, (1 - st1) * kept * (fs if serial else f), at1(s['launches']), kept * wave,
            kept * (fs if serial else f) * foot]

def lstsq(A, y):
    # Householder QR on a list of columns; returns coefficients or (None, bad column index)
    m = len(y); n = len(A); A = [col[:] for col in A]; y = y[:]; diag = []
    for k in range(n):
        v = A[k]; norm = math.sqrt(sum(v[i] ** 2 for i in range(k, m)))
        if not norm > 1e-8: return None, k
        dk = -norm if v[k] > 0 else norm; diag.append(dk); v[k] -= dk
        vv = sum(v[i] ** 2 for i in range(k, m))
        for x in A[k + 1:] + [y]:
            s = 2 * sum(v[i] * x[i] for i in range(k, m)) / vv
            for i in range(k, m): x[i] -= s * v[i]
    z = [0.0] * n
    for k in reversed(range(n)):
        s = y[k] - sum(A[j][k] * z[j] for j in range(k + 1, n)); z[k] = s / diag[k]
    return z, None

def fit(rows, times, nterms):
    m = len(rows); active = []
    for j in range(nterms):
        col = [r[j] for r in rows]; lo, hi = min(col), max(col)
        active.append(hi > 0 and (j == 5 or hi > lo))
    dv = [r[4] / r[3] for r in rows if r[3] > 0]
    if not dv or max(dv) - min(dv) <= 1e-9 * dv[0]: active[3] = False
    if not active[2]: active[9] = False
    for _ in range(2 * nterms):
        cols = [j for j in range(nterms) if active[j]]
        A = []; scale = []
        for j in cols:
            c = [rows[i][j] / times[i] for i in range(m)]; nrm = math.sqrt(sum(x * x for x in c))
            scale.append(nrm); A.append([x / nrm for x in c])
        z, bad = lstsq(A, [1.0] * m)
        if z is None:
            if cols[bad] < 10: return None
            active[cols[bad]] = False; continue
        param = [0.0] * nterms
        for k, j in enumerate(cols): param[j] = z[k] / scale[k]
        worst, wv = -1, 0.0
        for j in range(nterms):
            mean = sum(rows[i][j] / times[i] for i in range(m))
            if param[j] * mean < wv: wv, worst = param[j] * mean, j
        if worst < 0: return param
        active[worst] = False
    return None

def main(path, sm):
    d = json.load(open(path))['results']; sm = d.get('compute_units', sm)
    for name, nterms in (('v2 terms a-j', 10), ('v3 terms a-m', 13)):
        out = []
        for v in ('local', 'global', 'private'):
            tr = [c for c in d['training']['cases'] if c['variant'] == v]
            ev = [c for c in d['evaluation']['cases'] if c['variant'] == v]
            for c in tr + ev: c['SM'] = sm
            rows = [regressors(c)[:nterms] for c in tr]; times = [c['seconds'] for c in tr]
            p = fit(rows, times, nterms)
            if p is None: out.append('%s: no fit' % v); continue
            errs = [abs(sum(a * b for a, b in zip(p, regressors(c)[:nterms])) - c['seconds']) / c['seconds'] for c in ev]
            out.append('%s %d held-out: MAE %.1f%%, within 10%% %.0f%%' % (v, len(errs), 100 * sum(errs) / len(errs), 100 * sum(e <= 0.1 for e in errs) / len(errs)))
        print(name + ': ' + '; '.join(out))

if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: model-refit.py CALIBRATE.json")
    main(sys.argv[1], 0)
