package io.kvledger.journal;

import io.kvledger.journal.codec.CompactDocumentDecoder;
import io.kvledger.journal.codec.DeviceKind;
import io.kvledger.journal.codec.DocumentDecoder;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.JournalHeaderDecoder;
import io.kvledger.journal.codec.MessageHeaderDecoder;
import io.kvledger.journal.codec.PrefetchPolicy;
import org.agrona.DirectBuffer;

import java.util.zip.CRC32;

/**
 * Decodes one {@link JournalFrame} into reusable records: the {@link JournalHeader}, or a document's
 * {@link InputRecord}, result code and {@link EffectList}. It checks the frame, the schema id and version, the
 * template id, every group count against the frame length and every enum code, and reports problems as a
 * {@link FrameStatus} plus {@link #errorMessage()} instead of throwing. Decoding a valid document allocates nothing
 * once the records have grown to the largest document seen. Not thread-safe: owned by the reading thread.
 */
public final class JournalAdapter
{
    private static final int POOL_COLUMN = 1;
    private static final int FROM_STATE_COLUMN = 2;
    private static final int TO_STATE_COLUMN = 3;
    private static final int COMPONENT_COLUMN = 4;
    private static final int OP_KIND_COLUMN = 5;
    private static final int ROLE_COLUMN = 6;
    private static final int REASON_COLUMN = 7;
    private static final int REQUEST_FROM_COLUMN = 8;
    private static final int REQUEST_TO_COLUMN = 9;

    private final MessageHeaderDecoder messageHeaderDecoder = new MessageHeaderDecoder();
    private final JournalHeaderDecoder journalHeaderDecoder = new JournalHeaderDecoder();
    private final DocumentDecoder documentDecoder = new DocumentDecoder();
    private final CompactDocumentCodec compactCodec = new CompactDocumentCodec();
    private final CRC32 crc = new CRC32();
    private final byte[] crcScratch = new byte[4096];
    private final JournalHeader header = new JournalHeader();
    private final EffectList effects = new EffectList(64);
    private InputRecord input = new InputRecord(64);
    private int resultCode;
    private int schemaVersion;

    private FrameStatus lastStatus = FrameStatus.TOO_SHORT;
    private String errorDetail = "";
    private long expected;
    private long found;

    /**
     * Decode one frame; the records returned by the accessors hold the result until the next call.
     *
     * @param buffer holding the frame.
     * @param offset of the frame in the buffer.
     * @param length of the frame (the Chronicle document length).
     * @return {@link FrameStatus#HEADER} or {@link FrameStatus#DOCUMENT} when decoded, otherwise why not.
     */
    public FrameStatus decode(final DirectBuffer buffer, final int offset, final int length)
    {
        lastStatus = decodeFrame(buffer, offset, length);
        return lastStatus;
    }

    /**
     * The header decoded by the last call that returned {@link FrameStatus#HEADER}.
     *
     * @return the reused header record.
     */
    public JournalHeader header()
    {
        return header;
    }

    /**
     * The input of the last decoded document.
     *
     * @return the reused input record (replaced by a larger one when a document carries more fingerprints).
     */
    public InputRecord input()
    {
        return input;
    }

    /**
     * The result code of the last decoded document.
     *
     * @return result code as journaled.
     */
    public int resultCode()
    {
        return resultCode;
    }

    /**
     * The effects of the last decoded document.
     *
     * @return the reused effect list.
     */
    public EffectList effects()
    {
        return effects;
    }

    /**
     * SBE schema version of the last frame whose message header could be read.
     *
     * @return acting schema version.
     */
    public int schemaVersion()
    {
        return schemaVersion;
    }

    /**
     * Status of the last {@link #decode} call.
     *
     * @return last status.
     */
    public FrameStatus lastStatus()
    {
        return lastStatus;
    }

    /**
     * One-line explanation of the last failed decode, e.g. "crc mismatch (expected 0x1234abcd, found 0x1234abcf)".
     *
     * @return message, built on demand; empty after a successful decode.
     */
    public String errorMessage()
    {
        switch (lastStatus)
        {
            case HEADER:
            case DOCUMENT:
                return "";
            case TOO_SHORT:
                return "document of " + found + " bytes is shorter than a frame (" + expected + " bytes)";
            case BAD_MAGIC:
                return "bad magic (expected 0x" + Integer.toHexString((int)expected) + ", found 0x" +
                    Integer.toHexString((int)found) + ")";
            case BAD_LENGTH:
                return "frame payload length " + found + " does not match the document (" + expected +
                    " payload bytes)";
            case CRC_MISMATCH:
                return "crc mismatch (expected 0x" + Integer.toHexString((int)expected) + ", found 0x" +
                    Integer.toHexString((int)found) + ")";
            case UNKNOWN_SCHEMA:
                return "unknown schema id " + found + " (expected " + expected + ")";
            case NEWER_SCHEMA_VERSION:
                return "schema version " + found + " is newer than this build's version " + expected;
            case UNKNOWN_TEMPLATE:
                return "unknown template id " + found;
            default:
                return errorDetail;
        }
    }

    private FrameStatus decodeFrame(final DirectBuffer buffer, final int offset, final int length)
    {
        final int minimum = JournalFrame.HEADER_LENGTH + MessageHeaderDecoder.ENCODED_LENGTH;
        if (length < minimum)
        {
            return fail(FrameStatus.TOO_SHORT, minimum, length);
        }

        final int magic = buffer.getInt(offset + JournalFrame.MAGIC_OFFSET, JournalFrame.BYTE_ORDER);
        if (JournalFrame.MAGIC != magic)
        {
            return fail(FrameStatus.BAD_MAGIC, JournalFrame.MAGIC, magic);
        }

        final int payloadLength = buffer.getInt(offset + JournalFrame.LENGTH_OFFSET, JournalFrame.BYTE_ORDER);
        if (payloadLength != length - JournalFrame.HEADER_LENGTH)
        {
            return fail(FrameStatus.BAD_LENGTH, length - JournalFrame.HEADER_LENGTH, payloadLength & 0xFFFF_FFFFL);
        }

        final int payloadOffset = offset + JournalFrame.HEADER_LENGTH;
        final int storedCrc = buffer.getInt(offset + JournalFrame.CRC_OFFSET, JournalFrame.BYTE_ORDER);
        final int actualCrc = JournalFrame.crc32(crc, crcScratch, buffer, payloadOffset, payloadLength);
        if (storedCrc != actualCrc)
        {
            return fail(FrameStatus.CRC_MISMATCH, storedCrc, actualCrc);
        }

        messageHeaderDecoder.wrap(buffer, payloadOffset);
        final int schemaId = messageHeaderDecoder.schemaId();
        schemaVersion = messageHeaderDecoder.version();
        if (JournalHeaderDecoder.SCHEMA_ID != schemaId)
        {
            return fail(FrameStatus.UNKNOWN_SCHEMA, JournalHeaderDecoder.SCHEMA_ID, schemaId);
        }
        if (schemaVersion > JournalHeaderDecoder.SCHEMA_VERSION)
        {
            return fail(FrameStatus.NEWER_SCHEMA_VERSION, JournalHeaderDecoder.SCHEMA_VERSION, schemaVersion);
        }

        final int templateId = messageHeaderDecoder.templateId();
        final int blockLength = messageHeaderDecoder.blockLength();
        final int bodyOffset = payloadOffset + MessageHeaderDecoder.ENCODED_LENGTH;
        final int end = offset + length;
        if (CompactDocumentDecoder.TEMPLATE_ID == templateId)
        {
            return decodeCompactDocument(buffer, bodyOffset, end, blockLength);
        }
        if (DocumentDecoder.TEMPLATE_ID == templateId)
        {
            return decodeDocument(buffer, bodyOffset, end, blockLength);
        }
        if (JournalHeaderDecoder.TEMPLATE_ID == templateId)
        {
            return decodeHeader(buffer, bodyOffset, end, blockLength);
        }

        return fail(FrameStatus.UNKNOWN_TEMPLATE, 0, templateId);
    }

    private FrameStatus decodeHeader(
        final DirectBuffer buffer, final int bodyOffset, final int end, final int blockLength)
    {
        final int lengthFieldSize = JournalHeaderDecoder.kvledgerVersionHeaderLength();
        // Schema version 4 added fields at the end of the block: an older header's block ends before them.
        final int minimumBlock = schemaVersion >= 4 ? JournalHeaderDecoder.BLOCK_LENGTH :
            JournalHeaderDecoder.admissionRulesEncodingOffset();
        if (blockLength < minimumBlock || bodyOffset + blockLength + lengthFieldSize > end)
        {
            return structure("JournalHeader block length " + blockLength + " does not fit the frame");
        }

        final JournalHeaderDecoder decoder = journalHeaderDecoder.wrap(buffer, bodyOffset, blockLength, schemaVersion);
        final short prefetchPolicy = decoder.prefetchPolicyRaw();
        final short hybrid = decoder.hybridRaw();
        final short deviceKind = decoder.deviceKindRaw();
        if (!JournalCodes.isValid(JournalCodes.PREFETCH_POLICIES, prefetchPolicy) ||
            !JournalCodes.isValid(JournalCodes.BOOLEANS, hybrid) ||
            !JournalCodes.isValid(JournalCodes.DEVICE_KINDS, deviceKind))
        {
            return value("JournalHeader enum out of range (prefetchPolicy " + prefetchPolicy + ", hybrid " + hybrid +
                ", deviceKind " + deviceKind + ")");
        }

        header
            .createdNs(decoder.createdNs())
            .seed(decoder.seed())
            .pageSize(decoder.pageSize())
            .deviceKvPages(decoder.deviceKvPages())
            .deviceMambaSlots(decoder.deviceMambaSlots())
            .hostKvPages(decoder.hostKvPages())
            .hostMambaSlots(decoder.hostMambaSlots())
            .trackingSlots(decoder.trackingSlots())
            .maxStagedDefers(decoder.maxStagedDefers())
            .maxRequests(decoder.maxRequests())
            .maxRequestPages(decoder.maxRequestPages())
            .prefetchThresholdPages(decoder.prefetchThresholdPages())
            .prefetchPolicy(PrefetchPolicy.get(prefetchPolicy))
            .prefetchTimeoutNs(decoder.prefetchTimeoutNs())
            .hybrid(1 == hybrid)
            .deviceKind(DeviceKind.get(deviceKind))
            .kvPageBytes(decoder.kvPageBytes())
            .mambaStateBytes(decoder.mambaStateBytes())
            .faultMask(decoder.faults().getRaw())
            .maxNodes(decoder.maxNodes())
            .maxOps(decoder.maxOps());
        final int rules = decoder.admissionRules();
        final long perKi = decoder.prefetchTimeoutPerKiNs();
        header.admissionRules(rules == JournalHeaderDecoder.admissionRulesNullValue() ? 1 : rules)
            .prefetchTimeoutPerKiNs(perKi == JournalHeaderDecoder.prefetchTimeoutPerKiNsNullValue() ? 0 : perKi);
        if (header.admissionRules() < 1 || header.admissionRules() > JournalHeader.LATEST_ADMISSION_RULES ||
            header.prefetchTimeoutPerKiNs() < 0)
        {
            return value("JournalHeader admissionRules " + header.admissionRules() + " (this build knows 1 to " +
                JournalHeader.LATEST_ADMISSION_RULES + ") or prefetchTimeoutPerKiNs " +
                header.prefetchTimeoutPerKiNs() + " out of range");
        }

        final long versionLength = decoder.kvledgerVersionLength() & 0xFFFF_FFFFL;
        if (decoder.limit() + lengthFieldSize + versionLength + lengthFieldSize > end)
        {
            return structure("JournalHeader kvledgerVersion length " + versionLength + " does not fit the frame");
        }
        header.kvledgerVersion(decoder.kvledgerVersion());

        final long labelLength = decoder.labelLength() & 0xFFFF_FFFFL;
        if (decoder.limit() + lengthFieldSize + labelLength > end)
        {
            return structure("JournalHeader label length " + labelLength + " does not fit the frame");
        }
        header.label(decoder.label());
        compactCodec.window().reset();

        if (decoder.limit() != end)
        {
            return structure("JournalHeader ends at " + decoder.limit() + " but the frame has " +
                (end - decoder.limit()) + " more bytes");
        }

        return FrameStatus.HEADER;
    }

    private FrameStatus decodeCompactDocument(
        final DirectBuffer buffer, final int bodyOffset, final int end, final int blockLength)
    {
        final int lengthField = CompactDocumentDecoder.bodyHeaderLength();
        final int dataOffset = bodyOffset + blockLength + lengthField;
        if (blockLength < CompactDocumentDecoder.BLOCK_LENGTH || dataOffset > end)
        {
            return structure("CompactDocument block length " + blockLength + " does not fit the frame");
        }
        final long bodyLength = buffer.getInt(dataOffset - lengthField, JournalFrame.BYTE_ORDER) & 0xFFFF_FFFFL;
        if (dataOffset + bodyLength != end)
        {
            return structure("CompactDocument body of " + bodyLength + " bytes does not match the frame (" +
                (end - dataOffset) + " bytes)");
        }
        final int length = (int)bodyLength;
        final long fingerprintCount = compactCodec.fingerprintCount(buffer, dataOffset, length, schemaVersion);
        if (fingerprintCount > JournalFrame.MAX_GROUP_COUNT)
        {
            return structure("fingerprint count " + fingerprintCount + " exceeds the journal limit");
        }
        if (fingerprintCount > input.fingerprintCapacity())
        {
            input = new InputRecord((int)Math.max(fingerprintCount, 2L * input.fingerprintCapacity()));
        }
        final int code = compactCodec.decode(buffer, dataOffset, length, schemaVersion, input, effects);
        if (null != compactCodec.error())
        {
            return compactCodec.badValue() ? value(compactCodec.error()) : structure(compactCodec.error());
        }
        resultCode = code;
        return FrameStatus.DOCUMENT;
    }

    private FrameStatus decodeDocument(
        final DirectBuffer buffer, final int bodyOffset, final int end, final int blockLength)
    {
        final int groupHeader = DocumentDecoder.FingerprintsDecoder.sbeHeaderSize();
        if (blockLength < DocumentDecoder.BLOCK_LENGTH || bodyOffset + blockLength + groupHeader > end)
        {
            return structure("Document block length " + blockLength + " does not fit the frame");
        }

        final DocumentDecoder decoder = documentDecoder.wrap(buffer, bodyOffset, blockLength, schemaVersion);
        final short inputType = decoder.inputTypeRaw();
        final short ok = decoder.okRaw();
        if (!JournalCodes.isValid(JournalCodes.INPUT_TYPES, inputType) ||
            !JournalCodes.isValid(JournalCodes.BOOLEANS, ok))
        {
            return value("Document inputType " + inputType + " or ok " + ok + " out of range");
        }

        final long sequence = decoder.sequence();
        final long timestampNs = decoder.timestampNs();
        final int code = decoder.resultCode();
        final long request = decoder.request();
        final long op = decoder.op();
        final long value1 = decoder.value1();
        final long value2 = decoder.value2();
        final long value3 = decoder.value3();
        final long value4 = decoder.value4();
        final long value5 = decoder.value5();

        final DocumentDecoder.FingerprintsDecoder fingerprints = decoder.fingerprints();
        final int fingerprintCount = fingerprints.count();
        final int fingerprintBlock = fingerprints.actingBlockLength();
        if (fingerprintBlock < DocumentDecoder.FingerprintsDecoder.sbeBlockLength() ||
            (long)decoder.limit() + (long)fingerprintCount * fingerprintBlock + groupHeader > end)
        {
            return structure("fingerprints group of " + fingerprintCount + " x " + fingerprintBlock +
                " bytes does not fit the frame");
        }
        if (fingerprintCount > input.fingerprintCapacity())
        {
            input = new InputRecord(Math.max(fingerprintCount, 2 * input.fingerprintCapacity()));
        }

        final InputRecord record = input.reset()
            .type(InputType.get(inputType))
            .sequence(sequence)
            .timestampNs(timestampNs)
            .ok(1 == ok)
            .request(request)
            .op(op)
            .value1(value1)
            .value2(value2)
            .value3(value3)
            .value4(value4)
            .value5(value5);
        while (fingerprints.hasNext())
        {
            fingerprints.next();
            record.addFingerprint(fingerprints.hi(), fingerprints.lo());
        }

        final DocumentDecoder.EffectsDecoder group = decoder.effects();
        final int effectCount = group.count();
        final int effectBlock = group.actingBlockLength();
        if (effectBlock < DocumentDecoder.EffectsDecoder.sbeBlockLength() ||
            (long)decoder.limit() + (long)effectCount * effectBlock > end)
        {
            return structure("effects group of " + effectCount + " x " + effectBlock + " bytes does not fit the frame");
        }

        effects.clear();
        while (group.hasNext())
        {
            group.next();
            final short type = group.effectTypeRaw();
            if (!JournalCodes.isValid(JournalCodes.EFFECT_TYPES, type))
            {
                return value("effect " + effects.size() + " has unknown effect type " + type);
            }
            final int index = effects.add(EffectType.get(type));
            if (!code(index, POOL_COLUMN, JournalCodes.POOLS, group.poolRaw()) ||
                !code(index, FROM_STATE_COLUMN, JournalCodes.SLOT_STATES, group.fromStateRaw()) ||
                !code(index, TO_STATE_COLUMN, JournalCodes.SLOT_STATES, group.toStateRaw()) ||
                !code(index, COMPONENT_COLUMN, JournalCodes.COMPONENTS, group.componentRaw()) ||
                !code(index, OP_KIND_COLUMN, JournalCodes.OP_KINDS, group.opKindRaw()) ||
                !code(index, ROLE_COLUMN, JournalCodes.ROLES, group.roleRaw()) ||
                !code(index, REASON_COLUMN, JournalCodes.REASONS, group.reasonRaw()) ||
                !code(index, REQUEST_FROM_COLUMN, JournalCodes.REQUEST_STATES, group.requestFromRaw()) ||
                !code(index, REQUEST_TO_COLUMN, JournalCodes.REQUEST_STATES, group.requestToRaw()))
            {
                return value("effect " + index + " (" + EffectType.get(type) + ") has an enum code out of range");
            }
            effects
                .id(index, group.id())
                .owner(index, group.owner())
                .value1(index, group.value1())
                .value2(index, group.value2())
                .value3(index, group.value3());
        }

        if (decoder.limit() != end)
        {
            return structure("Document ends at " + decoder.limit() + " but the frame has " + (end - decoder.limit()) +
                " more bytes");
        }

        resultCode = code;
        return FrameStatus.DOCUMENT;
    }

    private boolean code(final int index, final int column, final boolean[] table, final short code)
    {
        if (!JournalCodes.isValidOrNull(table, code))
        {
            return false;
        }
        effects.code(index, column, code);
        return true;
    }

    private FrameStatus fail(final FrameStatus status, final long expected, final long found)
    {
        this.expected = expected;
        this.found = found;
        this.errorDetail = "";
        return status;
    }

    private FrameStatus structure(final String detail)
    {
        errorDetail = detail;
        return FrameStatus.BAD_STRUCTURE;
    }

    private FrameStatus value(final String detail)
    {
        errorDetail = detail;
        return FrameStatus.BAD_VALUE;
    }
}
