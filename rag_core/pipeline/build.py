"""Assemble the default answer path from settings (each part injectable for tests)."""

from __future__ import annotations

from datetime import date

from rag_core.embeddings import EmbeddingProvider, TokenEncoder, build_embedder, build_late_encoder
from rag_core.generation import Generator, build_generator
from rag_core.index import VectorIndex, open_index
from rag_core.models import CrossEncoder
from rag_core.models.cross import reader_files
from rag_core.pipeline.base import Stage
from rag_core.pipeline.corpus import CorpusView
from rag_core.pipeline.explain import AbstentionExplainer
from rag_core.pipeline.gates import ContextBudget, NamedStateGate, PrecedenceGate, SimilarityGate
from rag_core.pipeline.generate import GenerateStage
from rag_core.pipeline.neighbours import NeighbourStage
from rag_core.pipeline.query import EmbedStage, RewriteStage
from rag_core.pipeline.question import QuestionCheck
from rag_core.pipeline.read import (
    AnswerabilityGate,
    AnswerTypeGate,
    KeyWordGate,
    NotAskedStage,
    ReadStage,
    TopicGate,
)
from rag_core.pipeline.rerank import RerankStage
from rag_core.pipeline.retrieve import RetrieveStage
from rag_core.pipeline.runner import Pipeline
from rag_core.pipeline.scope import NamedDocumentStage, ScopeStage
from rag_core.pipeline.validate import AmountConflictStage, ClaimSupportStage, ValidateStage
from rag_core.reading.reader import LateInteractionPrefilter, SpanReader
from rag_core.rerank import (
    BestWindow,
    CohereReranker,
    CrossEncoderRerank,
    FusedOrder,
    LateDenseBlend,
    LexicalDenseReranker,
    Reranker,
)
from rag_core.retrieval import HybridRetriever
from rag_core.settings import CoreSettings


def build_reranker(settings: CoreSettings) -> Reranker:
    choice = settings.reranker
    if choice == "cohere" or (choice == "auto" and settings.cohere_api_key):
        assert settings.cohere_api_key is not None
        return CohereReranker(settings.cohere_api_key.get_secret_value())
    if choice == "none":
        return FusedOrder()
    if choice == "cross":
        # The base order is MaxSim + cosine with late interaction on, else the lexical blend.
        base: Reranker = LateDenseBlend() if settings.late_interaction != "none" else LexicalDenseReranker()
        window = settings.cross_rerank_window
        return CrossEncoderRerank(
            CrossEncoder.shared(settings.local_model_threads, workers=settings.model_workers),
            top_n=settings.cross_rerank_top_n,
            window=BestWindow(window, max(window // 4, 1)),
            base=base,
            fusion=settings.cross_rerank_fusion,
            cross_weight=settings.cross_rerank_weight,
        )
    if choice == "late" or (choice == "auto" and settings.late_interaction != "none"):
        # Over the index's MaxSim order: MaxSim + 0.25 x cosine raises MRR on both sets, the lexical
        # blend lowers it on both (benchmarks/README.md, "Late interaction").
        return LateDenseBlend()
    # Without it: the blend over the fused order (MRR 0.638 -> 0.686 on Contoso, benchmarks/README.md).
    return LexicalDenseReranker()


def build_pipeline(
    settings: CoreSettings,
    *,
    index: VectorIndex | None = None,
    embedder: EmbeddingProvider | None = None,
    generator: Generator | None = None,
    reranker: Reranker | None = None,
    late: TokenEncoder | None = None,
) -> Pipeline:
    """question -> scope -> rewrite -> embed -> retrieve -> gate -> rerank -> named -> context -> jurisdiction
    -> precedence -> read -> not_asked -> answerable -> topic -> answer_type -> generate -> validate -> support
    -> amounts.
    Parts not given are built from ``settings`` (LATE_INTERACTION=none: no token encoder; READER=none: no
    read/answerable/topic)."""
    index = index or open_index(settings)
    embedder = embedder or build_embedder(settings)
    generator = generator or build_generator(settings)
    reranker = reranker or build_reranker(settings)
    late = late or build_late_encoder(settings)
    corpus = CorpusView(
        index,
        embedder.model_name,
        embedder.dimension,
        late_model=late.model_name if late else None,
        late_dimension=late.dimension if late else 0,
        verb_forms=settings.word_forms == "verb",
    )
    cutoff = settings.cutoff_for(embedder.model_name)

    def today() -> date:
        return settings.today or date.today()

    def model_label(generated_by: str | None) -> str:
        return f"{generated_by or generator.model_name}+{embedder.model_name}"

    # A model reads the context (English) and decides answerability; READER=none keeps word-overlap picking.
    reading = settings.reader == "cross-encoder"
    reader_model = (
        CrossEncoder.shared(
            settings.local_model_threads,
            max_length=128,
            workers=settings.model_workers,
            files=reader_files(settings.reader_weights),
        )
        if reading
        else None
    )
    bars = settings.reader_calibration  # the gates' bars, in the logits of the reader's weights
    unknown_word_cutoff = settings.unknown_word_cutoff_for(embedder.model_name)
    topic_after_reading = reading and settings.topic_gate == "read"
    reading_stages: list[Stage] = (
        [
            ReadStage(
                SpanReader(
                    reader_model,
                    keep=settings.reader_keep,
                    situation=settings.reader_situation_words,
                    model=LateInteractionPrefilter(late) if late is not None else None,
                    model_spans=min(settings.reader_model_spans, settings.reader_keep),
                    range_rows=settings.range_rows,
                ),
                index=index if settings.reader_span_vectors == "stored" else None,
                titles=corpus if settings.reader_title_words != "off" else None,
                title_rows_only=settings.reader_title_words == "rows",
            ),
            NotAskedStage(
                sibling_sections=settings.sibling_sections,
                other_maximum=settings.other_maximum,
                range_rows=settings.range_rows,
                lone_items=settings.lone_list_items,
            ),
            AnswerabilityGate(bars.min_score, settings.similarity_rescue_reading),
        ]
        if reader_model is not None
        else []
    )
    if topic_after_reading and reader_model is not None:
        reading_stages.append(
            TopicGate(
                reader_model,
                settings.topic_ablation_margin,
                unknown_word_cutoff,
                strong_reading=bars.strong_reading,
                rise_allowance_from=bars.rise_allowance_from,
                dense_pass_margin=settings.topic_dense_pass_margin,
                judge_naming_clause=settings.topic_naming_clause,
            )
        )
    if reader_model is not None and settings.key_word_ablation:
        reading_stages.append(
            KeyWordGate(
                reader_model,
                corpus,
                settings.key_word_ablation_margin,
                strong_reading=settings.key_word_strong_reading,
                skip_named=settings.key_word_skip_named,
                asked_only=settings.key_word_asked_only,
            )
        )
    if reading and settings.answer_type_gate:
        reading_stages.append(
            AnswerTypeGate(
                bars.min_score,
                same_document=settings.quantity_same_document,
                tie=settings.answer_tie_margin,
            )
        )
    if reader_model is not None and settings.answer_neighbour_margin >= 0:
        reading_stages.append(NeighbourStage(reader_model, settings.answer_neighbour_margin))
    retriever = HybridRetriever(index, embedder, candidates=settings.candidates, late=late)
    stages: list[Stage] = [
        QuestionCheck(settings.max_question_chars),
        ScopeStage(settings.rbac_signing_key.get_secret_value(), corpus, today),
        RewriteStage(corpus),
        EmbedStage(embedder, late, asking_clauses=settings.asking_clause_similarity),
        RetrieveStage(retriever),
        SimilarityGate(
            cutoff,
            unknown_word_cutoff,
            topic_after_reading=topic_after_reading,
            # Only where a reader reads what the lower floor lets through (AnswerabilityGate's rescue bar).
            rescue_band=settings.similarity_rescue_band if reader_model is not None else 0.0,
        ),
        RerankStage(reranker),
        *([NamedDocumentStage(corpus)] if settings.named_document_scope else []),
        ContextBudget(cutoff, settings.max_context_chunks, settings.max_context_tokens),
        NamedStateGate(corpus),
        PrecedenceGate(corpus),
        *reading_stages,
        GenerateStage(generator),
        ValidateStage(settings.link_hosts),
        ClaimSupportStage(),
        AmountConflictStage(),
    ]
    explainer = AbstentionExplainer(
        corpus, retriever, cutoff=cutoff, margin=settings.near_topic_margin, unknown_word_cutoff=unknown_word_cutoff
    )
    return Pipeline(settings, stages, corpus, model_label=model_label, resources=[embedder, index], explainer=explainer)
