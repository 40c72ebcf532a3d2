import { z } from "zod";
import { untrustedText } from "../../core/agent/untrusted-text.ts";
import { defineTool } from "../../core/tools/tool.ts";
import { type DocumentStore, READ_ATTACHMENT_CAPABILITY } from "./document-store.ts";

/**
 * `read_attachment`: the next pages of a long document a person sent, which
 * came inline only up to its first page. Deferred (most turns carry no long
 * document) and gated by its own capability.
 */
export function readAttachmentTool(store: () => DocumentStore) {
  return defineTool({
    id: "read_attachment",
    description:
      "Read a page of a long document a person sent in this conversation. Its first page came with their message, which names the document's id and how many pages it has.",
    parameters: z.object({
      document: z
        .string()
        .trim()
        .regex(/^[0-9a-f]{12}$/, {
          error: "a document id is 12 hex characters, as the message shows it.",
        })
        .describe('The id the message gave, e.g. "3f2a9c01b7e4".'),
      page: z.number().int().min(1).describe("The page to read, from 1."),
    }),
    capability: READ_ATTACHMENT_CAPABILITY,
    defer: true,
    execute: async ({ document, page }, ctx) => {
      const found = await store().page(ctx, document, page);
      if (!found) {
        return `Document ${document} is not kept (any more) in this conversation; ask the person to send it again.`;
      }
      if (found.text === "")
        return `Document ${document} has pages 1 to ${found.pages}; there is no page ${page}.`;
      // The document's words are untrusted text, as its first page was in the message.
      return `Document ${document}, page ${found.page} of ${found.pages}:\n${untrustedText(`document ${document}, page ${found.page}`, found.text)}`;
    },
  });
}
