import { useChat } from "../state/chat-context.tsx";

/** The model (picked from what the endpoints list, or typed as PROVIDER:MODEL) and the agent. */
export function ChatPickers() {
  const models = useChat((s) => s.models);
  const providers = useChat((s) => s.providers);
  const model = useChat((s) => s.model);
  const setModel = useChat((s) => s.setModel);
  const agents = useChat((s) => s.agents);
  const agent = useChat((s) => s.agent);
  const setAgent = useChat((s) => s.setAgent);
  const running = useChat((s) => s.running);
  const notices = useChat((s) => [...s.modelNotices, ...s.agentNotices].join("\n"));

  return (
    <div className="chat-pickers">
      <label>
        Model
        <input
          type="text"
          list="chat-models"
          value={model}
          placeholder="provider:model"
          spellCheck={false}
          disabled={running}
          onChange={(event) => setModel(event.target.value)}
        />
      </label>
      <datalist id="chat-models">
        {models.map((m) => (
          <option key={m.id} value={m.id} />
        ))}
        {providers.map((p) => (
          <option key={`provider-${p.name}`} value={`${p.name}:`} label={p.description} />
        ))}
      </datalist>
      <label>
        Agent
        <select value={agent} disabled={running} onChange={(event) => setAgent(event.target.value)}>
          {agents.length === 0 ? <option value="default">default</option> : null}
          {agents.map((a) => (
            <option key={a.id} value={a.id} title={a.description}>
              {a.id}
            </option>
          ))}
        </select>
      </label>
      {notices ? (
        <ul className="chat-notices" aria-label="Model notices">
          {notices.split("\n").map((notice, index) => (
            <li key={index} className="notice">
              {notice}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
