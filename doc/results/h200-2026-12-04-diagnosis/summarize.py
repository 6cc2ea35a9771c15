#!/usr/bin/env python3
"""Figures of the 2026-12-04 diagnosis, computed from the raw files beside
this script (run from this folder: python3 summarize.py > summary.txt).

For each run report: items/s, GB/s and, where the run had them, the copy
engine's idle seconds by cause; for each trace: the share of the measured
epoch's span the copy engine was busy (the union of its copies), the copy
durations and each producer's median fill time."""
import csv
import glob
import gzip
import json
import os
import statistics


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def report(folder):
    for path in sorted(glob.glob(os.path.join(folder, 'run-*.csv'))):
        name = os.path.basename(path)[4:-4]
        for r in rows(path):
            idle = ''
            if r.get('idle_s'):
                idle = '  idle %.4f s: no row %.4f, no slot %.4f, check %.4f, release %.4f, other %.4f' % tuple(
                    float(r[k]) for k in ('idle_s', 'idle_no_row_s', 'idle_no_slot_s', 'idle_check_s',
                                          'idle_release_s', 'idle_other_s'))
            print('  %-14s %-22s %10.1f items/s %6.2f GB/s  window %s s%s' % (
                name, r['arm'], float(r['items_per_s']), float(r['gb_per_s']), r['seconds'], idle))


def busy(spans):
    spans.sort()
    total, start, end = 0.0, None, None
    for a, b in spans:
        if end is None or a > end:
            if end is not None:
                total += end - start
            start, end = a, b
        else:
            end = max(end, b)
    if end is not None:
        total += end - start
    return total


def csv_trace(path):
    """The CSV timeline of arenabench at aea2610 ($ARENABENCH_H2D_TRACE)."""
    with gzip.open(path, 'rt') as f:
        r = list(csv.DictReader(f))
    r = r[len(r) // 2:]            # the measured epoch: the second of two
    spans = [(float(x['copy_start_ms']), float(x['copy_stop_ms'])) for x in r]
    span = max(b for _, b in spans) - min(a for a, _ in spans)
    late = [float(x['verify_start_ms']) - float(x['copy_stop_ms']) for x in r if x['verify_start_ms']]
    done = [int(x['done_ns']) / 1e6 - float(x['copy_stop_ms']) for x in r]
    line = '  %-30s busy %.3f  copy median %.1f us' % (
        os.path.basename(path), busy(spans) / span, statistics.median(b - a for a, b in spans) * 1e3)
    if late:
        line += '  check starts %.0f us after its copy, item done %.0f us after (medians)' % (
            statistics.median(late) * 1e3, statistics.median(done) * 1e3)
    else:
        line += '  item done %.0f us after its copy (median)' % (statistics.median(done) * 1e3)
    print(line)


def json_trace(path):
    with gzip.open(path, 'rt') as f:
        events = json.load(f)['traceEvents']
    epoch = {e['args']['sequence']: e['args']['epoch'] for e in events if e['ph'] == 'X'}
    measured = [e for e in events if e['ph'] != 'M' and epoch.get(e['args']['sequence']) == 1]
    copies = [(e['ts'], e['ts'] + e['dur']) for e in measured if e['name'] == 'copy']
    span = max(b for _, b in copies) - min(a for a, _ in copies)
    fills = {}
    for e in measured:
        if e['name'] == 'fill':
            fills.setdefault(e['tid'], []).append(e['dur'])
    print('  %-30s busy %.3f  copy median %.1f us  fill median per producer: %s us' % (
        os.path.basename(path), busy(copies) / span, statistics.median(b - a for a, b in copies),
        ' '.join('%.0f' % statistics.median(v) for _, v in sorted(fills.items()))))


for folder in sorted(d for d in os.listdir('.') if os.path.isdir(d)):
    print(folder)
    for probe in sorted(glob.glob(os.path.join(folder, 'probe*.csv'))):
        for r in rows(probe):
            if r['producers'] != '0':
                print('  %-14s probe %s producers, %s MiB: %s GB/s' % (
                    os.path.basename(probe), r['producers'], r['size_mib'], r['pipe_gbps']))
    report(folder)
    for path in sorted(glob.glob(os.path.join(folder, 'trace-*.csv.gz'))):
        csv_trace(path)
    for path in sorted(glob.glob(os.path.join(folder, 't*.json.gz'))):
        json_trace(path)
    for path in sorted(glob.glob(os.path.join(folder, 'cpu4k-*.csv'))):
        for r in rows(path):
            print('  %-30s %10.0f items/s (CPU consumer, 4 KiB)' % (os.path.basename(path), float(r['items_per_s'])))

# The tail of the 4-producer runs of f: while every producer still fills,
# and after the first one has filled its share of the epoch.
print('f-slow-producers: the copy engine busy while every producer fills, and after the first is done')
for name in ('tl-1', 'tl-2', 'tl-3', 'ts-1', 'ts-2', 'ts-3'):
    with gzip.open(os.path.join('f-slow-producers', name + '.json.gz'), 'rt') as f:
        events = json.load(f)['traceEvents']
    epoch = {e['args']['sequence']: e['args']['epoch'] for e in events if e['ph'] == 'X'}
    measured = [e for e in events if e['ph'] != 'M' and epoch.get(e['args']['sequence']) == 1]
    copies = sorted((e['ts'], e['ts'] + e['dur']) for e in measured if e['name'] == 'copy')
    last_fill = {}
    for e in measured:
        if e['name'] == 'fill':
            last_fill[e['tid']] = max(last_fill.get(e['tid'], 0), e['ts'] + e['dur'])
    first_done = min(last_fill.values())
    t0, t1 = copies[0][0], copies[-1][1]

    def share(a, b):
        inside = busy([(max(x, a), min(y, b)) for x, y in copies if min(y, b) > max(x, a)])
        return inside / (b - a) if b > a else 0

    print('  %-6s window %.0f ms; every producer filling until %.0f ms: busy %.3f; after: busy %.3f' % (
        name, (t1 - t0) / 1e3, (first_done - t0) / 1e3, share(t0, first_done), share(first_done, t1)))
