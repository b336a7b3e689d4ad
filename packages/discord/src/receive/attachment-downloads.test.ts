import { AttachmentFetchError, type InboundAttachment } from "@switchboard/core/adapter";
import { type Client, DiscordAPIError, RESTJSONErrorCodes } from "discord.js";
import { describe, expect, it } from "vitest";
import { discordAttachmentDownloads, discordFileOrigins, linkExpired } from "./attachment-downloads.ts";

const NOW = Date.UTC(2026, 0, 10);
const hex = (ms: number) => Math.floor(ms / 1000).toString(16);
const CDN = "https://cdn.discordapp.com";
const link = (ex: number) => `${CDN}/attachments/1/3/a.png?ex=${hex(ex)}&is=0&hm=x`;

const attachment = (url: string): InboundAttachment => ({
  name: "a.png",
  ref: { channelId: "1", messageId: "2", attachmentId: "3", url },
});

/** A client whose REST answers reading the message with `answer` (or throws it). */
function clientReading(answer: () => unknown): { client: Client; reads: string[] } {
  const reads: string[] = [];
  const rest = {
    get: async (route: string) => {
      reads.push(route);
      return answer();
    },
  };
  return { client: { rest } as unknown as Client, reads };
}

function cdnAnswering(statusFor: (url: string) => number): { fetchImpl: typeof fetch; urls: string[] } {
  const urls: string[] = [];
  const fetchImpl = (async (input: string | URL | Request) => {
    const url = String(input);
    urls.push(url);
    const status = statusFor(url);
    return new Response(status === 200 ? "png" : "This content is no longer available.", { status });
  }) as typeof fetch;
  return { fetchImpl, urls };
}

describe("Discord attachment downloads", () => {
  it.each([
    ["a link that expires later", link(NOW + 60_000), false],
    ["a link past its expiry", link(NOW - 1_000), true],
    ["a link with no expiry", `${CDN}/attachments/1/3/a.png`, false],
    ["an expiry that is not hex", `${CDN}/x?ex=zz`, false],
  ])("%s", (_, url, expired) => {
    expect(linkExpired(url, NOW)).toBe(expired);
  });

  it("fetches only Discord's CDN hosts (the stand-in's own origin when the API is elsewhere)", () => {
    expect(discordFileOrigins("https://discord.com/api")).toEqual([CDN, "https://media.discordapp.net"]);
    expect(discordFileOrigins("http://127.0.0.1:9/api")).toEqual(["http://127.0.0.1:9"]);
  });

  it("refuses a link on another host before any request", async () => {
    const { client, reads } = clientReading(() => ({ attachments: [] }));
    const cdn = cdnAnswering(() => 200);
    const downloads = discordAttachmentDownloads({
      client: () => client,
      origins: [CDN],
      now: () => NOW,
      fetchImpl: cdn.fetchImpl,
    });
    await expect(
      downloads.open(attachment("https://evil.example/a.png"), AbortSignal.timeout(5_000)),
    ).rejects.toThrow(/refused to download a.png/);
    expect(cdn.urls).toEqual([]);
    expect(reads).toEqual([]);
  });

  it("renews a link the CDN answers as gone by reading the message again", async () => {
    const fresh = link(NOW + 86_400_000).replace("hm=x", "hm=fresh");
    const { client, reads } = clientReading(() => ({ attachments: [{ id: "3", url: fresh }] }));
    const cdn = cdnAnswering((url) => (url === fresh ? 200 : 404));
    const downloads = discordAttachmentDownloads({
      client: () => client,
      origins: [CDN],
      now: () => NOW,
      fetchImpl: cdn.fetchImpl,
    });
    await downloads.open(attachment(link(NOW + 60_000)), AbortSignal.timeout(5_000));
    expect(cdn.urls).toEqual([link(NOW + 60_000), fresh]);
    expect(reads).toEqual(["/channels/1/messages/2"]);
  });

  it("tells the sender in one sentence when the message with the file was deleted", async () => {
    const { client } = clientReading(() => {
      throw new DiscordAPIError(
        { code: RESTJSONErrorCodes.UnknownMessage, message: "Unknown Message" },
        RESTJSONErrorCodes.UnknownMessage,
        404,
        "GET",
        "/channels/1/messages/2",
        {},
      );
    });
    const downloads = discordAttachmentDownloads({
      client: () => client,
      origins: [CDN],
      now: () => NOW,
      fetchImpl: cdnAnswering(() => 404).fetchImpl,
    });
    const failure = await downloads
      .open(attachment(link(NOW - 1_000)), AbortSignal.timeout(5_000))
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AttachmentFetchError);
    expect((failure as AttachmentFetchError).userMessage).toBe(
      "a.png is no longer available on Discord (its message was deleted).",
    );
  });
});
