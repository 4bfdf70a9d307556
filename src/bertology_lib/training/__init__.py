"""Training: one loop, the objectives as batch builders, and the pipelines built on them.

==================  ===============================================================================
module              holds
==================  ===============================================================================
``loop``            :func:`~bertology_lib.training.loop.train` (AdamW, schedules, callbacks,
                    keep-best, data-parallel under accelerate) and its config
``objectives``      causal-LM, QA and mixed-pool batch builders
``masking``         the masked-LM objective: BERT masking, MLM and NSP batches, masked-only views
``pretrain``        the one MLM pre-training pipeline (mini-BERT, lab BERTs, physics BERT) and its held-out
                    measure (masked-LM accuracy)
``minibert``        training the embedded mini-BERT (cached, resumable, with its checkpoints); registers
                    ``mini-bert`` with the model registry
``english_bert``    training the English lab BERT (MiniLM's encoder + MLM/NSP heads on public English);
                    registers ``english-bert``
``encoding``        a task's splits tokenised for fine-tuning, padded batches
``predictions``     per-example predictions of a fine-tuned head, metrics, ensembles
``finetune``        the one fine-tuning entry point (strategies, tracking, cached weights)
==================  ===============================================================================
"""

# register the embedded names "mini-bert" and "english-bert" with the model registry, which sits below training
# and cannot import it
from bertology_lib.training import english_bert, minibert  # noqa: E402,F401
