"""A verdicts file's rows as stored, for the independent verdict verifier (``fastspe.verify.verdicts``).

Only the file is checked here (its format, and for Parquet the page checksums and content digest), none
of what the verdicts mean: the verifier names every row that is wrong, where ``read_verdicts`` would
refuse the file at the first. CSV cells come back as the text they hold (formula escapes undone).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..errors import UserError
from .files import read_jsonl, table_format, unescape_formulas
from .parquet import read_parquet


def read_verdict_rows(path) -> pd.DataFrame:
    """The rows of the verdicts file ``path`` (Parquet, CSV or JSONL), values as stored."""
    fmt = table_format(path, (".parquet", ".csv", ".jsonl"))
    if not Path(path).is_file():
        raise UserError(f"{path}: no such file")
    if fmt == "parquet":
        return read_parquet(path, "verdicts").to_pandas()
    if fmt == "jsonl":
        return pd.DataFrame.from_records(read_jsonl(path))
    try:
        df = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: not a readable CSV file ({str(exc).strip().splitlines()[0][:200]})") from None
    return df.apply(unescape_formulas)
