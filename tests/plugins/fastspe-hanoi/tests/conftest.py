"""The plugin's tests run from fastspe's root (``python -m pytest tests/plugins/fastspe-hanoi/tests``) whether or not
fastspe-hanoi is installed: its package folder goes on ``sys.path`` here. What needs fastspe to *find* the domain
(scoring, the command line) needs the entry point, so those tests are skipped unless the plugin is installed."""

import sys
from pathlib import Path

PLUGIN_ROOT = Path(__file__).resolve().parents[1]
if str(PLUGIN_ROOT) not in sys.path:
    sys.path.insert(0, str(PLUGIN_ROOT))
