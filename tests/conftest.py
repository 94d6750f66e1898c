import sys
from pathlib import Path

# the oracle is a test helper module, not part of the package
sys.path.insert(0, str(Path(__file__).parent))
