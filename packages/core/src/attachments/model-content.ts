/**
 * Images reach the model as image content blocks built at each model call from the blob store: the
 * checkpointed history holds only their references (in the human message's `additional_kwargs`),
 * so a conversation's checkpoint does not grow with the bytes of the pictures in it.
 */
import { type BaseMessage, type ContentBlock, HumanMessage } from "@langchain/core/messages";
import type { BlobRef } from "./blobs/blob-store.ts";
import { IMAGES_KEY, type StoredAttachment } from "./stored-attachment.ts";

/** An image's bytes for a model call, base64; undefined when the blob is gone (retention, /forget). */
export type LoadImage = (blob: BlobRef) => Promise<string | undefined>;

/** The user's turn as the history keeps it: text (with the files' lines) and image references. */
export function humanTurn(text: string, images: readonly StoredAttachment[]): HumanMessage {
  if (images.length === 0) return new HumanMessage(text);
  return new HumanMessage({ content: text, additional_kwargs: { [IMAGES_KEY]: images.map(imageRef) } });
}

function imageRef(image: StoredAttachment) {
  return { name: image.name, mediaType: image.mediaType, size: image.size, blob: image.blob };
}

function imagesOf(message: BaseMessage): StoredAttachment[] {
  if (!HumanMessage.isInstance(message)) return [];
  const images: unknown = message.additional_kwargs?.[IMAGES_KEY];
  return Array.isArray(images) ? (images as StoredAttachment[]) : [];
}

/**
 * The history for one model call: each human message that carries images gets them as image blocks
 * after its text when the model takes images, and a line saying it cannot see them when it does not.
 * Messages without images are passed on as they are (the same objects).
 */
export async function withImageBlocks(
  messages: readonly BaseMessage[],
  acceptsImages: boolean,
  load: LoadImage | undefined,
): Promise<BaseMessage[]> {
  return Promise.all(
    messages.map(async (message) => {
      const images = imagesOf(message);
      if (images.length === 0) return message;
      const text = message.text;
      const base = {
        ...(message.id ? { id: message.id } : {}),
        ...(message.name ? { name: message.name } : {}),
      };
      if (!acceptsImages || !load)
        return new HumanMessage({
          ...base,
          content: `${text}\n[The model answering now cannot see images: only the names, types and sizes above are known.]`,
        });
      const blocks: ContentBlock[] = [{ type: "text", text }];
      const gone: string[] = [];
      for (const image of images) {
        const data = await load(image.blob);
        if (data === undefined) gone.push(image.name);
        else
          blocks.push({
            type: "image",
            source_type: "base64",
            mime_type: image.mediaType,
            data,
          });
      }
      if (gone.length > 0)
        blocks[0] = { type: "text", text: `${text}\n[No longer kept, so not shown: ${gone.join(", ")}]` };
      return new HumanMessage({ ...base, content: blocks });
    }),
  );
}
