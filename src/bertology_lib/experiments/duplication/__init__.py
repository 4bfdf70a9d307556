"""BERT's output layer recognizes all hidden layers? (Kao et al. 2020): the duplication boost.

``boost``: deeper copies of an encoder fine-tuned side by side, paired gains, fair ensembles.
"""
