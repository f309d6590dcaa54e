package io.kvledger.engine.effect;

/**
 * Result codes of applying an input, grouped by subsystem in ranges of a thousand. Zero is success, positive
 * codes are outcomes that are not errors, negative codes are rejected inputs that changed nothing.
 */
public final class ResultCode
{
    /** Applied. */
    public static final int OK = 0;
    /** Applied; the request was deferred, made to wait or dropped (see the effects). */
    public static final int NOT_ADMITTED = 1;

    /** The request id is not known to the engine. */
    public static final int UNKNOWN_REQUEST = -1001;
    /** The request id is already in use. */
    public static final int DUPLICATE_REQUEST = -1002;
    /** Admit outside a PassBegin/PassEnd pair, or PassBegin inside one. */
    public static final int NOT_IN_PASS = -1003;
    /** The request is not in a state that accepts this input. */
    public static final int REQUEST_STATE = -1004;
    /** The request table is full. */
    public static final int TOO_MANY_REQUESTS = -1005;
    /** The request has more pages than the configuration allows, or page counts are out of range. */
    public static final int BAD_REQUEST_SIZE = -1006;
    /** A pass is already open. */
    public static final int PASS_OPEN = -1007;
    /** An input the engine cannot take at all (no input type); refused before the ring, never journaled. */
    public static final int BAD_INPUT = -1008;

    /** The slot transition is not in the legal-transition table. */
    public static final int SLOT_ILLEGAL_TRANSITION = -2001;
    /** The slot id is outside the pool. */
    public static final int SLOT_UNKNOWN = -2002;
    /** The pool has no free slot. */
    public static final int SLOT_POOL_EXHAUSTED = -2003;

    /** The lock receipt is unknown or was already released. */
    public static final int LOCK_RECEIPT_UNKNOWN = -3001;
    /** The node is locked and cannot be removed. */
    public static final int NODE_LOCKED = -3002;
    /** The node has children and cannot be removed. */
    public static final int NODE_HAS_CHILDREN = -3003;
    /** The node id is not live. */
    public static final int NODE_UNKNOWN = -3004;
    /** The node pool is exhausted. */
    public static final int NODE_POOL_EXHAUSTED = -3005;

    /** The operation id is unknown. */
    public static final int UNKNOWN_OP = -4001;
    /** Ack of an operation that was never launched. */
    public static final int OP_NOT_LAUNCHED = -4002;
    /** Second ack of an operation. */
    public static final int OP_ALREADY_DONE = -4003;
    /** The input does not match the operation's kind. */
    public static final int OP_KIND_MISMATCH = -4004;
    /** The operation table is full. */
    public static final int OP_TABLE_FULL = -4005;

    /** The ring is full and the caller asked not to wait. */
    public static final int RING_FULL = -5001;
    /** The engine loop stopped (closed, or fail-stopped after an exception in apply). */
    public static final int ENGINE_STOPPED = -5002;

    private ResultCode()
    {
    }

    /**
     * Name of a result code, for tools and messages (not for the apply path).
     *
     * @param code to name.
     * @return its constant name, or "CODE_n".
     */
    public static String name(final int code)
    {
        switch (code)
        {
            case OK: return "OK";
            case NOT_ADMITTED: return "NOT_ADMITTED";
            case UNKNOWN_REQUEST: return "UNKNOWN_REQUEST";
            case DUPLICATE_REQUEST: return "DUPLICATE_REQUEST";
            case NOT_IN_PASS: return "NOT_IN_PASS";
            case REQUEST_STATE: return "REQUEST_STATE";
            case TOO_MANY_REQUESTS: return "TOO_MANY_REQUESTS";
            case BAD_REQUEST_SIZE: return "BAD_REQUEST_SIZE";
            case PASS_OPEN: return "PASS_OPEN";
            case BAD_INPUT: return "BAD_INPUT";
            case SLOT_ILLEGAL_TRANSITION: return "SLOT_ILLEGAL_TRANSITION";
            case SLOT_UNKNOWN: return "SLOT_UNKNOWN";
            case SLOT_POOL_EXHAUSTED: return "SLOT_POOL_EXHAUSTED";
            case LOCK_RECEIPT_UNKNOWN: return "LOCK_RECEIPT_UNKNOWN";
            case NODE_LOCKED: return "NODE_LOCKED";
            case NODE_HAS_CHILDREN: return "NODE_HAS_CHILDREN";
            case NODE_UNKNOWN: return "NODE_UNKNOWN";
            case NODE_POOL_EXHAUSTED: return "NODE_POOL_EXHAUSTED";
            case UNKNOWN_OP: return "UNKNOWN_OP";
            case OP_NOT_LAUNCHED: return "OP_NOT_LAUNCHED";
            case OP_ALREADY_DONE: return "OP_ALREADY_DONE";
            case OP_KIND_MISMATCH: return "OP_KIND_MISMATCH";
            case OP_TABLE_FULL: return "OP_TABLE_FULL";
            case RING_FULL: return "RING_FULL";
            case ENGINE_STOPPED: return "ENGINE_STOPPED";
            default: return "CODE_" + code;
        }
    }
}
