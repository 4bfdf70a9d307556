"""BERT's output layer recognizes all hidden layers? (Kao et al. 2020): the duplication boost.

``reconstruction``: the input read back from every layer through the MLM head, with its baselines (§3).
``boost``: deeper copies of an encoder fine-tuned side by side, paired gains, fair ensembles.
"""
