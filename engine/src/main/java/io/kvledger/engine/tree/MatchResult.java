package io.kvledger.engine.tree;

/**
 * Result of {@link RadixTree#match}: reused by the caller, filled by the tree. All depths are in pages.
 */
public final class MatchResult
{
    /** Pages matched, page-granular; may end inside {@link #partialNode}. */
    public int pages;
    /** Deepest node whose pages are all matched ({@link RadixTree#ROOT} when none). */
    public int node;
    /** Depth at the end of {@link #node}. */
    public int nodePages;
    /** Node matched only partly beyond {@link #node}, or {@link RadixTree#NO_NODE}. */
    public int partialNode;
    /** Deepest fully matched node on the path that holds a Mamba state, or {@link RadixTree#ROOT}. */
    public int mambaNode;
    /** Depth at the end of {@link #mambaNode} (0 for the root). */
    public int mambaPages;

    /** Set by insert only: pages of the inserted span the tree already held before the insert. */
    public int existingPages;

    /** Reset to an empty match. */
    public void clear()
    {
        pages = 0;
        node = RadixTree.ROOT;
        nodePages = 0;
        partialNode = RadixTree.NO_NODE;
        mambaNode = RadixTree.ROOT;
        mambaPages = 0;
        existingPages = 0;
    }
}
