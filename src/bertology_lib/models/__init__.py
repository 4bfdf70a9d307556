"""Models by name and the architectures the library builds.

==================  ===============================================================================
module              holds
==================  ===============================================================================
``registry``        model names (embedded, local folder, hub) -> HF models and tokenizers; the hub
                    is asked once per process; :class:`~bertology_lib.models.sources.ModelSource`
``minibert``        the embedded mini-BERT: config per profile, corpus, training through the one MLM
                    pipeline, checkpoints
``english_bert``    the English lab BERT: config per profile (MiniLM's encoder or a fresh BERT), its corpus of
                    public English and held-out text, tokenizer, the untrained model
``decoder``         Llama-style decoders trained from scratch, and a BERT of the same shape
``task_heads``      classification and extractive-QA heads on any encoder
``tokenization``    word-level tokenizers and the WordPiece trainer
``baselines``       null models (the random-init twin)
``sources``         :class:`~bertology_lib.models.sources.ModelSource`: a model by name, folder or object
``wordpiece``       a WordPiece vocabulary trained so that its pieces and ids do not depend on the process
==================  ===============================================================================
"""
