// A signed-in dashboard user as the page is one: credentials sign-in through Auth.js's real endpoints,
// the JSON API with the session cookie (and the CSRF pair on mutations), and the live stream read as
// server-sent events.
import { API_BASE } from "../../src/dashboard/api.js";
import { Jar, type TestUser } from "../integration/dashboard/support.js";
import { call, type RawReply } from "./rest.js";

/** One message of the live stream: its event name and its JSON data. */
export interface LiveMessage {
  readonly type: string;
  readonly op: string;
  readonly data: Record<string, unknown>;
}

/** An open live stream: the messages received so far, in order. */
export class LiveStream {
  readonly messages: LiveMessage[] = [];
  private readonly abort = new AbortController();
  /** Resolves once the server has answered (its headers are in). */
  readonly opened: Promise<number>;

  constructor(url: string, cookie: string) {
    this.opened = fetch(url, {
      headers: { cookie, accept: "text/event-stream" },
      signal: this.abort.signal,
    }).then((res) => {
      void this.read(res).catch(() => undefined); // ends with close()
      return res.status;
    });
  }

  private async read(res: Response): Promise<void> {
    if (!res.body) return;
    const decoder = new TextDecoder();
    let buffered = "";
    for await (const chunk of res.body) {
      buffered += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffered.indexOf("\n\n")) >= 0) {
        this.take(buffered.slice(0, end));
        buffered = buffered.slice(end + 2);
      }
    }
  }

  /** One SSE frame: `event:` and `data:` lines (comments and `retry:` carry no message). */
  private take(frame: string): void {
    const field = (name: string) =>
      frame
        .split("\n")
        .find((line) => line.startsWith(`${name}: `))
        ?.slice(name.length + 2);
    const type = field("event");
    const data = field("data");
    if (type === undefined || data === undefined) return;
    const parsed = JSON.parse(data) as { op: string; data: Record<string, unknown> };
    this.messages.push({ type, op: parsed.op, data: parsed.data });
  }

  close(): void {
    this.abort.abort();
  }
}

export class DashboardClient {
  private constructor(
    private readonly jar: Jar,
    private readonly csrf: string,
    /** The Kubernetes identity the dashboard authorizes this user as (`/me`'s `kubernetes`). */
    readonly identity: { readonly username: string; readonly groups: readonly string[] },
  ) {}

  /** Signs `user` in with the credentials provider; fails unless the session works. */
  static async signIn(baseUrl: string, user: TestUser): Promise<DashboardClient> {
    const jar = new Jar(baseUrl);
    await jar.signIn(user.username, user.password);
    const me = await jar.fetch(`${API_BASE}/me`);
    if (me.status !== 200) throw new Error(`${user.username} is not signed in: /me answered ${me.status}`);
    const body = (await me.json()) as { csrfToken: string; kubernetes: DashboardClient["identity"] };
    return new DashboardClient(jar, body.csrfToken, body.kubernetes);
  }

  /** GET of a path of the JSON API (below /dashboard/api). */
  get(path: string): Promise<RawReply> {
    return this.call("GET", path);
  }

  /** POST with the CSRF pair, as the page makes it. */
  post(path: string, body: unknown): Promise<RawReply> {
    return this.call("POST", path, body);
  }

  stream(): LiveStream {
    return new LiveStream(new URL(`${API_BASE}/stream`, this.jar.baseUrl).href, this.jar.header());
  }

  private call(method: string, path: string, body?: unknown): Promise<RawReply> {
    const url = new URL(`${API_BASE}${path}`, this.jar.baseUrl).href;
    const headers = { cookie: this.jar.header(), ...(body !== undefined && { "x-csrf-token": this.csrf }) };
    return call(method, url, { headers, ...(body !== undefined && { body }) });
  }
}
