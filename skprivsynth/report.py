"""Quality report of a synthetic table: figures, tables and a self-contained HTML page.

:class:`MarginalErrorDisplay` follows scikit-learn's display objects (such as
:class:`sklearn.metrics.ConfusionMatrixDisplay`): :meth:`MarginalErrorDisplay.from_data`
computes everything from a real and a synthetic table with the metrics of
:mod:`skprivsynth.metrics`, :meth:`~MarginalErrorDisplay.plot` draws it with matplotlib
(imported only there: ``pip install "skprivsynth[plot]"``), and
:meth:`~MarginalErrorDisplay.to_html` writes a report page with the figures embedded.
"""

from .metrics._plot import MarginalErrorDisplay

__all__ = ["MarginalErrorDisplay"]
