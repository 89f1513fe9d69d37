"""The synthesizers, one module each, and their discovery.

A synthesizer of the package is a public subclass of
:class:`~skprivsynth.base.BaseSynthesizer` defined in a module of this package:
:func:`all_synthesizers` finds it there, as scikit-learn's
:func:`~sklearn.utils.discovery.all_estimators` finds estimators, and
:mod:`skprivsynth`, the command line and the common tests read that list.  A synthesizer
defined elsewhere (a test's, a plug-in's) joins it with :func:`register_synthesizer`.
"""

import importlib
import inspect
import pkgutil

from ..base import BaseSynthesizer

__all__ = ["all_synthesizers", "register_synthesizer"]

#: Synthesizers defined outside this package: name -> class (register_synthesizer).
_REGISTERED = {}


def _package_synthesizers():
    found = {}
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        for name, cls in inspect.getmembers(module, inspect.isclass):
            if (
                issubclass(cls, BaseSynthesizer)
                and cls.__module__ == module.__name__
                and not name.startswith("_")
            ):
                found[name] = cls
    return found


def register_synthesizer(cls):
    """Add ``cls``, a synthesizer defined outside this package, to :func:`all_synthesizers`.

    Parameters
    ----------
    cls : subclass of BaseSynthesizer
        Its name must differ from those of the other synthesizers.

    Returns
    -------
    cls
        Unchanged, so that the function can decorate the class.
    """
    if not (isinstance(cls, type) and issubclass(cls, BaseSynthesizer)):
        raise TypeError(f"register_synthesizer takes a subclass of BaseSynthesizer; got {cls!r}.")
    known = {**_package_synthesizers(), **_REGISTERED}
    if known.get(cls.__name__, cls) is not cls:
        raise ValueError(f"a synthesizer named {cls.__name__!r} is already known.")
    _REGISTERED[cls.__name__] = cls
    return cls


def all_synthesizers():
    """Every synthesizer: those of this package and the registered ones.

    Returns
    -------
    list of (str, type)
        ``(name, class)`` pairs sorted by name.

    Examples
    --------
    >>> from skprivsynth import MarginalSynthesizer
    >>> from skprivsynth.synthesizers import all_synthesizers
    >>> ("MarginalSynthesizer", MarginalSynthesizer) in all_synthesizers()
    True
    """
    return sorted({**_package_synthesizers(), **_REGISTERED}.items())
