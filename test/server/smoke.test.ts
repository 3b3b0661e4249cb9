import { describe, expect, it } from 'vitest';
import { uploadForm, useTestServer } from '../helpers/server.js';

describe('reference server smoke', () => {
  const server = useTestServer();

  it('registers, uploads with a relativePath, lists and streams content', async () => {
    const { token } = await server.register('smoke@example.com');
    const up = await server.call(token, 'POST', '/api/v1/uploads', uploadForm('x.txt', 'hello world', { relativePath: 'docs/x.txt' }));
    expect(up.status).toBe(201);
    expect(up.body.fileEntry).toMatchObject({ name: 'x.txt', file_size: 11, type: 'text' });
    const list = await server.call(token, 'GET', '/api/v1/drive/file-entries');
    expect(list.body.total).toBe(2);
    const content = await server.call(token, 'GET', `/${up.body.fileEntry.url}`, undefined, { range: 'bytes=6-' });
    expect(content.status).toBe(206);
    expect(content.body).toBe('world');
  });
});
