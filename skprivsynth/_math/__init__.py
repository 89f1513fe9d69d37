"""Pure numerical kernels (no estimators); each module is testable on its own."""
