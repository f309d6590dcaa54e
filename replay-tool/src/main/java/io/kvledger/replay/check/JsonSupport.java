package io.kvledger.replay.check;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The one Jackson mapper of the check package's renderers. Thread-safe once built.
 */
final class JsonSupport
{
    static final ObjectMapper MAPPER = new ObjectMapper();

    private JsonSupport()
    {
    }

    static ObjectNode object()
    {
        return MAPPER.createObjectNode();
    }

    static String write(final JsonNode node)
    {
        try
        {
            return MAPPER.writeValueAsString(node);
        }
        catch (final JsonProcessingException ex)
        {
            throw new IllegalStateException("cannot render JSON", ex);
        }
    }
}
