import sys
from pathlib import Path

# the loops lifted here, and the benchmark's loop catalogue (bench/lift), whose
# functions the tests take rather than keep copies of
HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "bench" / "lift"))
