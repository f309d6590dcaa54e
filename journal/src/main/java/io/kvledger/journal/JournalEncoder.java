package io.kvledger.journal;

import io.kvledger.journal.codec.BooleanType;
import io.kvledger.journal.codec.CompactDocumentEncoder;
import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.DocumentEncoder;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.FaultSetEncoder;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.JournalHeaderEncoder;
import io.kvledger.journal.codec.MessageHeaderEncoder;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.Reason;
import io.kvledger.journal.codec.RequestState;
import io.kvledger.journal.codec.Role;
import io.kvledger.journal.codec.SlotState;
import org.agrona.MutableDirectBuffer;

import java.util.zip.CRC32;

/**
 * Encodes a {@link JournalHeader} or one document (input, result code, effects) into a {@link JournalFrame}; the
 * encoders are reused, so encoding allocates nothing. Documents are written as a {@code CompactDocument} (schema
 * version 3, {@link CompactDocumentCodec}); {@link #encodeDocumentV1} still writes the version-1 fixed layout, for
 * tests of the old decoding. Not thread-safe: owned by the writing thread.
 */
public final class JournalEncoder
{
    private final MessageHeaderEncoder messageHeaderEncoder = new MessageHeaderEncoder();
    private final JournalHeaderEncoder journalHeaderEncoder = new JournalHeaderEncoder();
    private final DocumentEncoder documentEncoder = new DocumentEncoder();
    private final CompactDocumentEncoder compactEncoder = new CompactDocumentEncoder();
    private final CompactDocumentCodec compactCodec;
    private final CRC32 crc = new CRC32();
    private final byte[] crcScratch = new byte[1024];

    /** An encoder with its own fingerprint window. */
    public JournalEncoder()
    {
        this(new FingerprintWindow());
    }

    /**
     * @param window the journal's fingerprint window, shared with any other encoder of the same journal (used by one
     *               thread at a time, documents in journal order).
     */
    public JournalEncoder(final FingerprintWindow window)
    {
        compactCodec = new CompactDocumentCodec(window);
    }

    /** @return the fingerprint window of the journal this encoder writes. */
    public FingerprintWindow fingerprintWindow()
    {
        return compactCodec.window();
    }

    /**
     * Encode the journal header as a complete frame.
     *
     * @param buffer to encode into; it must hold the whole frame (an expandable buffer grows).
     * @param offset of the frame in the buffer.
     * @param header to encode.
     * @return length of the frame in bytes.
     * @throws JournalException when an enum field of the header is null.
     */
    public int encodeHeader(final MutableDirectBuffer buffer, final int offset, final JournalHeader header)
    {
        if (null == header.prefetchPolicy() || null == header.deviceKind())
        {
            throw new JournalException("header prefetchPolicy and deviceKind must be set");
        }

        final JournalHeaderEncoder encoder = journalHeaderEncoder
            .wrapAndApplyHeader(buffer, offset + JournalFrame.HEADER_LENGTH, messageHeaderEncoder)
            .createdNs(header.createdNs())
            .seed(header.seed())
            .pageSize(header.pageSize())
            .deviceKvPages(header.deviceKvPages())
            .deviceMambaSlots(header.deviceMambaSlots())
            .hostKvPages(header.hostKvPages())
            .hostMambaSlots(header.hostMambaSlots())
            .trackingSlots(header.trackingSlots())
            .maxStagedDefers(header.maxStagedDefers())
            .maxRequests(header.maxRequests())
            .maxRequestPages(header.maxRequestPages())
            .prefetchThresholdPages(header.prefetchThresholdPages())
            .prefetchPolicy(header.prefetchPolicy())
            .prefetchTimeoutNs(header.prefetchTimeoutNs())
            .hybrid(header.hybrid() ? BooleanType.TRUE : BooleanType.FALSE)
            .deviceKind(header.deviceKind())
            .kvPageBytes(header.kvPageBytes())
            .mambaStateBytes(header.mambaStateBytes());

        final FaultSetEncoder faults = encoder.faults();
        faults.buffer().putLong(faults.offset(), header.faultMask(), JournalFrame.BYTE_ORDER);

        encoder
            .maxNodes(header.maxNodes())
            .maxOps(header.maxOps())
            .admissionRules(header.admissionRules())
            .prefetchTimeoutPerKiNs(header.prefetchTimeoutPerKiNs())
            .kvledgerVersion(null == header.kvledgerVersion() ? "" : header.kvledgerVersion())
            .label(null == header.label() ? "" : header.label());

        compactCodec.window().reset();
        return seal(buffer, offset, MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength());
    }

    /**
     * Encode one document as a complete frame in the compact encoding (schema version 3: an {@code ARRIVE} may refer
     * to fingerprints of a recent one, so documents must reach the journal in the order they are encoded).
     *
     * @param buffer     to encode into; it must hold the whole frame (an expandable buffer grows).
     * @param offset     of the frame in the buffer.
     * @param input      the input; its sequence is the document's.
     * @param resultCode result of applying the input.
     * @param effects    ordered effects, enum columns as raw codes with {@link EffectList#NULL_CODE} for null.
     * @return length of the frame in bytes.
     * @throws JournalException when a group is too large or a code is not a value of its enum.
     */
    public int encodeDocument(
        final MutableDirectBuffer buffer,
        final int offset,
        final InputRecord input,
        final int resultCode,
        final EffectList effects)
    {
        validateCounts(input, effects);

        final int headerOffset = offset + JournalFrame.HEADER_LENGTH;
        compactEncoder.wrapAndApplyHeader(buffer, headerOffset, messageHeaderEncoder);
        final int lengthOffset = headerOffset + MessageHeaderEncoder.ENCODED_LENGTH;
        final int bodyOffset = lengthOffset + CompactDocumentEncoder.bodyHeaderLength();
        buffer.checkLimit(bodyOffset + CompactDocumentCodec.maxLength(input, effects));
        final int bodyLength = compactCodec.encode(buffer, bodyOffset, input, resultCode, effects);
        if (bodyLength < 0)
        {
            throw new JournalException("input " + input.sequence() + " " + compactCodec.error());
        }
        buffer.putInt(lengthOffset, bodyLength, JournalFrame.BYTE_ORDER);

        return seal(buffer, offset, bodyOffset + bodyLength - headerOffset);
    }

    /**
     * Encode one document as a complete frame in the version-1 fixed layout ({@code Document}, one group entry per
     * effect), as journals written before schema version 2 hold it.
     *
     * @param buffer     to encode into; it must hold the whole frame (an expandable buffer grows).
     * @param offset     of the frame in the buffer.
     * @param input      the input; its sequence is the document's.
     * @param resultCode result of applying the input.
     * @param effects    ordered effects, enum columns as raw codes with {@link EffectList#NULL_CODE} for null.
     * @return length of the frame in bytes.
     * @throws JournalException when a group is too large or a code is not a value of its enum.
     */
    public int encodeDocumentV1(
        final MutableDirectBuffer buffer,
        final int offset,
        final InputRecord input,
        final int resultCode,
        final EffectList effects)
    {
        validate(input, effects);

        final DocumentEncoder encoder = documentEncoder
            .wrapAndApplyHeader(buffer, offset + JournalFrame.HEADER_LENGTH, messageHeaderEncoder);
        messageHeaderEncoder.version(1);
        encoder
            .sequence(input.sequence())
            .timestampNs(input.timestampNs())
            .inputType(input.type())
            .ok(input.ok() ? BooleanType.TRUE : BooleanType.FALSE)
            .resultCode(resultCode)
            .request(input.request())
            .op(input.op())
            .value1(input.value1())
            .value2(input.value2())
            .value3(input.value3())
            .value4(input.value4())
            .value5(input.value5());

        final int fingerprintCount = input.fingerprintCount();
        final DocumentEncoder.FingerprintsEncoder fingerprints = encoder.fingerprintsCount(fingerprintCount);
        for (int i = 0; i < fingerprintCount; i++)
        {
            fingerprints.next().hi(input.fingerprintHi(i)).lo(input.fingerprintLo(i));
        }

        final int effectCount = effects.size();
        final DocumentEncoder.EffectsEncoder group = encoder.effectsCount(effectCount);
        for (int i = 0; i < effectCount; i++)
        {
            group.next()
                .effectType(EffectType.get(effects.typeCode(i)))
                .pool(Pool.get(effects.poolCode(i)))
                .fromState(SlotState.get(effects.fromStateCode(i)))
                .toState(SlotState.get(effects.toStateCode(i)))
                .component(Component.get(effects.componentCode(i)))
                .opKind(OpKind.get(effects.opKindCode(i)))
                .role(Role.get(effects.roleCode(i)))
                .reason(Reason.get(effects.reasonCode(i)))
                .requestFrom(RequestState.get(effects.requestFromCode(i)))
                .requestTo(RequestState.get(effects.requestToCode(i)))
                .id(effects.id(i))
                .owner(effects.owner(i))
                .value1(effects.value1(i))
                .value2(effects.value2(i))
                .value3(effects.value3(i));
        }

        return seal(buffer, offset, MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength());
    }

    private static void validateCounts(final InputRecord input, final EffectList effects)
    {
        if (null == input.type() || InputType.NULL_VAL == input.type())
        {
            throw new JournalException("input " + input.sequence() + " has no input type");
        }
        if (input.fingerprintCount() > JournalFrame.MAX_GROUP_COUNT)
        {
            throw new JournalException("input " + input.sequence() + " has " + input.fingerprintCount() +
                " fingerprints, more than the journal limit " + JournalFrame.MAX_GROUP_COUNT);
        }
        if (effects.size() > JournalFrame.MAX_GROUP_COUNT)
        {
            throw new JournalException("input " + input.sequence() + " has " + effects.size() +
                " effects, more than the journal limit " + JournalFrame.MAX_GROUP_COUNT);
        }
    }

    private static void validate(final InputRecord input, final EffectList effects)
    {
        if (null == input.type() || InputType.NULL_VAL == input.type())
        {
            throw new JournalException("input " + input.sequence() + " has no input type");
        }
        if (input.fingerprintCount() > JournalFrame.MAX_GROUP_COUNT)
        {
            throw new JournalException("input " + input.sequence() + " has " + input.fingerprintCount() +
                " fingerprints, more than the journal limit " + JournalFrame.MAX_GROUP_COUNT);
        }
        final int effectCount = effects.size();
        if (effectCount > JournalFrame.MAX_GROUP_COUNT)
        {
            throw new JournalException("input " + input.sequence() + " has " + effectCount +
                " effects, more than the journal limit " + JournalFrame.MAX_GROUP_COUNT);
        }
        for (int i = 0; i < effectCount; i++)
        {
            final short type = effects.typeCode(i);
            if (EffectList.NULL_CODE == type || !JournalCodes.isValid(JournalCodes.EFFECT_TYPES, type) ||
                !JournalCodes.isValidOrNull(JournalCodes.POOLS, effects.poolCode(i)) ||
                !JournalCodes.isValidOrNull(JournalCodes.SLOT_STATES, effects.fromStateCode(i)) ||
                !JournalCodes.isValidOrNull(JournalCodes.SLOT_STATES, effects.toStateCode(i)) ||
                !JournalCodes.isValidOrNull(JournalCodes.COMPONENTS, effects.componentCode(i)) ||
                !JournalCodes.isValidOrNull(JournalCodes.OP_KINDS, effects.opKindCode(i)) ||
                !JournalCodes.isValidOrNull(JournalCodes.ROLES, effects.roleCode(i)) ||
                !JournalCodes.isValidOrNull(JournalCodes.REASONS, effects.reasonCode(i)) ||
                !JournalCodes.isValidOrNull(JournalCodes.REQUEST_STATES, effects.requestFromCode(i)) ||
                !JournalCodes.isValidOrNull(JournalCodes.REQUEST_STATES, effects.requestToCode(i)))
            {
                throw new JournalException("input " + input.sequence() + " effect " + i +
                    " has a code that is not a value of its enum");
            }
        }
    }

    private int seal(final MutableDirectBuffer buffer, final int offset, final int payloadLength)
    {
        final int payloadOffset = offset + JournalFrame.HEADER_LENGTH;
        final int crc32 = JournalFrame.crc32(crc, crcScratch, buffer, payloadOffset, payloadLength);
        buffer.putInt(offset + JournalFrame.LENGTH_OFFSET, payloadLength, JournalFrame.BYTE_ORDER);
        buffer.putInt(offset + JournalFrame.CRC_OFFSET, crc32, JournalFrame.BYTE_ORDER);
        buffer.putInt(offset + JournalFrame.MAGIC_OFFSET, JournalFrame.MAGIC, JournalFrame.BYTE_ORDER);
        return JournalFrame.HEADER_LENGTH + payloadLength;
    }
}
