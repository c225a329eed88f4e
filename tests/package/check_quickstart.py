"""Reads the quick start's output on stdin ("step i: loss L" lines, then "final loss L") and
exits non-zero unless there are ten steps and the loss falls: the last step's loss is below a
tenth of the first's, and the final loss below the last step's."""

import re
import sys

text = sys.stdin.read()
sys.stdout.write(text)
steps = [float(v) for v in re.findall(r"^step \d+: loss ([-+0-9.eE]+)", text, re.M)]
final = re.findall(r"^final loss ([-+0-9.eE]+)", text, re.M)
problems = []
if len(steps) != 10:
    problems.append("expected 10 'step i: loss L' lines, found %d" % len(steps))
elif not steps[-1] < steps[0] / 10:
    problems.append("the loss did not fall tenfold: %g -> %g" % (steps[0], steps[-1]))
if not final or (steps and not float(final[0]) < steps[-1]):
    problems.append("no final loss below the last step's")
if problems:
    sys.exit("check_quickstart: " + "; ".join(problems))
print("check_quickstart: the loss falls from %g to %s" % (steps[0], final[0]))
