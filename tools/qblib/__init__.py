"""qblib - the parts of tools/qb.

Reading: run.py (a run from a log, results.json or a LAVA export: lavaexport.py), machine.py (what the
boot and cache records say: hypervisor, cache sizes, line size; the machine record's product and BIOS),
memory.py (the machine record's memory: its line, and whether two runs' memory differs). The numbers: figure.py (a result's
figure, clean first, noisy marked), measure.py (its units), match.py (which results of two runs
measured the same thing), signif.py (whether their difference is real, corrected for how many were
tested), sides.py (a side of qb compare: one run or several), clock.py (the core clock of a run and
its results), noise.py (the noise workload in words). The views: table.py and table_counter.py (qb
table), compare.py, plot.py with plot_counter.py, plot_matrix.py, plot_workloads.py and plot_noise.py
(qb plot), report.py and report_machines.py (qb report); text.py for the text views' numbers.
launch.py runs QEMU (qb run).

Records follow docs/records.md and are read by tools/qbrecords.py.
"""
